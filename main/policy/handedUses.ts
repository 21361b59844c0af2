import type { SubCommand } from '../../shared/commandPreview';
import { codeHandedOn, handedLine } from './handedCode';
import { BOTH, type PathUse } from './pathUse';

/** How deep shell text handed on inside handed text is followed. */
const MAX_HANDED_DEPTH = 4;

/**
 * The files the shell text a sub-command hands on reads and writes (`sh -c TEXT`, `eval`, `rsync -e
 * TEXT`, `tar -I TEXT`, `git -c core.pager=TEXT`, `git rebase --exec TEXT`, `PAGER=TEXT`…,
 * handedCode.ts): the text is parsed and judged as a line of its own by `nestedUses`, run where the
 * command runs. Text that cannot be read, and code a handed line runs without showing it (`python3
 * -c`, a script), leave what is touched known only when the line runs. (Code the line itself runs
 * without showing it already makes the line ask: see riskFlags.) `depth`: how many handed lines
 * enclose the command.
 */
export function handedUses(command: SubCommand, depth: number, nestedUses: (commands: readonly SubCommand[]) => PathUse[]): PathUse[] {
  const unknown = (why: string): PathUse => ({ accesses: BOTH, written: command.text, paths: [], below: true, unknown: why });
  const codes = codeHandedOn(command);
  const uses: PathUse[] = [];
  for (const code of codes) {
    if (code.opaque) uses.push(unknown(code.opaque));
    for (const text of code.texts) {
      if (depth >= MAX_HANDED_DEPTH) {
        uses.push(unknown(`${command.text} hands on shell text nested too deep to read`));
        continue;
      }
      const line = handedLine(command, text);
      uses.push(...('unreadable' in line ? [unknown(line.unreadable)] : nestedUses(line.commands)));
    }
  }
  const followed = codes.some((code) => code.texts.length > 0 || code.opaque);
  if (depth > 0 && !followed && command.runsCode.length > 0) uses.push(unknown(`${command.text} runs code the line does not show (${command.runsCode[0]!.why})`));
  return uses;
}
