import type { SubCommand } from '../../shared/commandPreview';
import { GateError } from '../../shared/errors';
import { COMMAND_OPTION_PROGRAMS, shellTextsOf } from '../tools/shell/hiddenCode';
import { parseNestedCommand } from '../tools/shell/parseCommand';
import { baseName, programWords } from '../tools/shell/programWords';
import { isAssignment, wordValue } from '../tools/shell/shellWords';
import { wordShapes, type WordShape } from '../tools/shell/wordShapes';
import { sedEffects, sedScripts } from './sedScript';

/**
 * The shell code a sub-command hands on to be run, as text a deny or ask rule can read: the text
 * of `eval`, `sh -c`, `su -c`, `trap`, `alias`, `watch`, `ssh`, `env -S` and git's `-c` settings
 * (shellTextsOf), a here-string fed to a shell or to `source`, and variables whose value programs
 * run as a command (`GIT_SSH_COMMAND=…`, `PAGER=…`, set as a prefix, bare or by `export`). Code a
 * shell reads from its input otherwise (a pipe, a here-document, `<(…)`, `/dev/stdin`) or text only
 * known at run time cannot be read: `opaque` says why, and every deny and ask then matches.
 */
export interface HandedCode {
  readonly texts: string[];
  readonly opaque?: string;
}

/** Shell text a sub-command hands on, read as a line of its own: its sub-commands, or why it cannot be read. */
export type HandedLine = { readonly commands: readonly SubCommand[] } | { readonly unreadable: string };

/** Programs that take shell text or read shell code from a file or their input. */
export const CODE_TAKERS = new Set([...COMMAND_OPTION_PROGRAMS, 'sed', 'hash', 'scp', 'sftp', 'eval', 'bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'busybox', 'su', 'runuser', 'script', 'flock', 'trap', 'alias', 'watch', 'ssh', 'env', 'git', 'source', '.']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash']);
/** Shell options that take the next word as their value. */
const SHELL_VALUE_OPTIONS = new Set(['-o', '+o', '-O', '+O', '--rcfile', '--init-file']);
/** Variables whose value a program runs as a shell command. */
const COMMAND_VARIABLES = /^(GIT_SSH_COMMAND|GIT_SSH|GIT_EXTERNAL_DIFF|GIT_PAGER|GIT_EDITOR|GIT_SEQUENCE_EDITOR|GIT_ASKPASS|SSH_ASKPASS|PAGER|MANPAGER|EDITOR|VISUAL|LESSOPEN|LESSCLOSE|PROMPT_COMMAND|BROWSER)\+?=/;
const DECLARATIONS = new Set(['export', 'declare', 'typeset', 'local', 'readonly']);
/** Stands for a word only known at run time in text handed to shellTextsOf (a parsed line holds no NUL). */
const RUNTIME_WORD = '\0runtime\0';

/** The handed texts of each sub-command, parsed: kept with the sub-command, so the path reader and the rule reader parse each text once between them. */
const handedLines = new WeakMap<SubCommand, Map<string, HandedLine>>();

/** `text`, which `command` hands on, parsed as a line of its own (once, whichever reader asks first). */
export function handedLine(command: SubCommand, text: string): HandedLine {
  let lines = handedLines.get(command);
  if (!lines) {
    lines = new Map();
    handedLines.set(command, lines);
  }
  let line = lines.get(text);
  if (!line) {
    line = parsedLine(text);
    lines.set(text, line);
  }
  return line;
}

function parsedLine(text: string): HandedLine {
  try {
    return { commands: parseNestedCommand(text) };
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return { unreadable: `the shell text ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)} cannot be read (${error.message})` };
  }
}

/** A sub-command's words past its assignments, as shapes, and where the program that runs starts among them (wrappers such as `sudo` or `env` aside). */
export function programShapes(command: SubCommand): { words: WordShape[]; stripped: number } {
  let first = 0;
  while (first < command.argv.length && isAssignment(command.argv[first]!)) first++;
  const words = command.argv.slice(first).flatMap((word) => wordShapes(word));
  return { words, stripped: words.length - programWords(command.argv).argv.length };
}

/** The code a sub-command hands on to be run: its program's (`sh -c TEXT`, `rsync -e TEXT`, `git rebase --exec TEXT`), its wrapper's (`env -S TEXT`) and its variables' (`PAGER=TEXT`). */
export function codeHandedOn(command: SubCommand): HandedCode[] {
  const { words, stripped } = programShapes(command);
  // The wrapper too, where it takes code itself (`env -S TEXT`).
  const starts = [...new Set([0, stripped])].filter((start) => start >= 0 && start < words.length);
  return [commandVariables(command), ...starts.map((start) => handedCode(command, words.slice(start), true))];
}

/** The code the program at the head of `words` is handed; `runs` says it is the program the line runs, not an argument that may be one. */
export function handedCode(command: SubCommand, words: readonly WordShape[], runs: boolean): HandedCode {
  const program = baseName(words[0]?.literal ?? '');
  if (program === 'sed') return sedCode(words.slice(1));
  const texts = shellTextsOf(words.map((word) => word.literal ?? `${knownHead(word.written)}${RUNTIME_WORD}`));
  if (texts.some((text) => text.includes(RUNTIME_WORD))) return { texts: [], opaque: `${program} runs shell text only known when the line runs` };
  if (texts.length > 0 || !runs || !(SHELLS.has(program) || program === 'source' || program === '.')) return { texts };
  const file = scriptOperand(program, words.slice(1));
  if (file?.literal !== undefined && !/^\/dev\/(stdin|fd\/)/.test(file.literal)) return { texts }; // a script file: out of reach
  const fromInput = file === undefined || file.literal === '/dev/stdin' || file.literal === '/dev/fd/0';
  const inputs = command.redirects.filter((redirect) => /^0?</.test(redirect.op));
  const fed = fromInput && inputs.length === 1 && inputs[0]!.op.endsWith('<<<') ? wordValue(inputs[0]!.target) : undefined;
  if (fed && !fed.computed) return { texts: [fed.value] };
  return { texts: [], opaque: `${program} runs shell code from its input or a file only known when the line runs, which the line does not show` };
}

/**
 * The text a word only known at run time starts with for sure: `--to-command=` of
 * `--to-command="$X"`, so the option is still seen and its value read as unknown, not dropped.
 */
function knownHead(written: string): string {
  const { value } = wordValue(written);
  const unknownAt = value.search(/[$`*?[]/);
  return unknownAt < 0 ? value : value.slice(0, unknownAt);
}

/**
 * The commands a sed script runs through the shell: `e COMMAND` as text; `e` alone, `s///e` or a
 * script only known at run time, opaque. A script in a file is code in a file, out of reach as
 * `bash script.sh` is (the files it may read or write are judged as unknown paths).
 */
function sedCode(args: readonly WordShape[]): HandedCode {
  const { scripts, sandboxed } = sedScripts(args.map((word) => ({ value: word.literal ?? RUNTIME_WORD, raw: word.written })));
  if (sandboxed) return { texts: [] };
  const texts: string[] = [];
  for (const script of scripts) {
    if (script.value.includes(RUNTIME_WORD)) return { texts: [], opaque: `sed's script ${script.raw} is only known when the line runs` };
    const effects = sedEffects(script.value);
    const opaque = effects.unreadable ?? effects.runsInput;
    if (opaque) return { texts: [], opaque: `sed: ${opaque}` };
    texts.push(...effects.commands);
  }
  return { texts };
}

/** The word a shell or `source` reads its script from, if it names one. */
function scriptOperand(program: string, args: readonly WordShape[]): WordShape | undefined {
  if (program === 'source' || program === '.') return args[0];
  for (let at = 0; at < args.length; at++) {
    const value = args[at]!.literal;
    if (value === undefined || value === '-' || !/^[-+]/.test(value)) return args[at];
    if (value === '--') return args[at + 1];
    if (value === '-s' || /^-[a-zA-Z]*s[a-zA-Z]*$/.test(value)) return undefined;
    if (SHELL_VALUE_OPTIONS.has(value)) at++;
  }
  return undefined;
}

/** Command texts set in variables programs run (`GIT_SSH_COMMAND='…' git fetch`, `export PAGER=…`). */
export function commandVariables(command: SubCommand): HandedCode {
  const words = programWords(command.argv);
  const declared = DECLARATIONS.has(words.argv[0] ?? '') ? words.argv.slice(1).filter(isAssignment) : [];
  const assignments = [...words.prefixes, ...declared].filter((assignment) => COMMAND_VARIABLES.test(assignment));
  const texts: string[] = [];
  for (const assignment of assignments) {
    const value = wordValue(assignment.slice(assignment.indexOf('=') + 1));
    if (value.computed) return { texts: [], opaque: `${assignment.slice(0, assignment.indexOf('='))} is set to a command only known when the line runs` };
    texts.push(value.value);
  }
  return { texts };
}
