import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { applyEdits, findNodeAtLocation, modify, parseTree, type FormattingOptions } from 'jsonc-parser';
import { GateError } from '../../shared/errors';
import { describePolicyProblem, type RuleEffect, type RuleSource } from '../../shared/policy';
import { compilePolicyText, type PolicyContext } from './policyFile';

/**
 * Edits of a policy file made from the console: a rule appended ("Always allow") or one removed
 * (revoke). The text is edited in place (jsonc-parser keeps the rest of the file as it was written),
 * checked as the engine would load it, and written atomically: a fault saves nothing.
 */

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

function readOrEmpty(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new GateError('EPERMISSION', `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); make it readable by you`);
  }
}

async function writeChecked(file: string, layer: RuleSource['layer'], text: string, context: PolicyContext): Promise<void> {
  const loaded = await compilePolicyText(text, file, layer, context);
  if (!loaded.ok) throw new GateError('EVALIDATION', `nothing was saved: ${loaded.problems.map(describePolicyProblem).join('; ')}`);
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  writeFileSync(temp, text.endsWith('\n') ? text : `${text}\n`, { mode: 0o600 });
  renameSync(temp, file);
}

/** Appends rules to a list of a policy file (created when missing); refuses, saving nothing, when the result would not load. */
export async function appendRules(file: string, layer: RuleSource['layer'], effect: RuleEffect, rules: readonly string[], context: PolicyContext): Promise<void> {
  const before = readOrEmpty(file);
  if (before !== undefined) {
    const loaded = await compilePolicyText(before, file, layer, context);
    if (!loaded.ok) throw new GateError('EVALIDATION', `nothing was saved, because the file is refused as it is: ${loaded.problems.map(describePolicyProblem).join('; ')}`);
  }
  let text = before ?? '{}\n';
  for (const rule of rules) text = applyEdits(text, modify(text, [effect, -1], rule.trim(), { isArrayInsertion: true, formattingOptions: FORMAT }));
  await writeChecked(file, layer, text, context);
}

/** Removes the entry written at `line` of a list that says `text`; false when no such entry is there. */
export async function removeRule(file: string, layer: RuleSource['layer'], effect: RuleEffect, rule: { text: string; line?: number }, context: PolicyContext): Promise<boolean> {
  const text = readOrEmpty(file);
  const list = text === undefined ? undefined : findNodeAtLocation(parseTree(text) ?? { type: 'null', offset: 0, length: 0 }, [effect]);
  if (text === undefined || !list?.children) return false;
  const lineOf = (offset: number) => text.slice(0, offset).split('\n').length;
  const index = list.children.findIndex((entry) => {
    const ruleNode = entry.type === 'object' ? findNodeAtLocation(entry, ['rule']) : entry;
    return typeof ruleNode?.value === 'string' && ruleNode.value.trim() === rule.text && (rule.line === undefined || lineOf(ruleNode.offset) === rule.line);
  });
  if (index === -1) return false;
  await writeChecked(file, layer, applyEdits(text, modify(text, [effect, index], undefined, { formattingOptions: FORMAT })), context);
  return true;
}
