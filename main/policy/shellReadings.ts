import type { SubCommand } from '../../shared/commandPreview';
import { baseName } from '../tools/shell/programWords';
import { ANY_TEXT, type WordShape } from '../tools/shell/wordShapes';
import { CODE_TAKERS, commandVariables, handedCode, handedLine, programShapes } from './handedCode';
import { gitCommandsLike, gitSubcommandIndex, mayBeGitAlias } from './gitCommands';
import { npmMayRun } from './npmCommands';
import { onlyOptions, optionGiven, ruleOptionSpelling, type OptionSpelling, type WrittenOptions } from './optionSpellings';

/**
 * How a deny or ask rule reads a sub-command: as every command bash could run from it, so that no
 * spelling dodges the rule (fail closed: such a rule may match more than runs, never less).
 *
 * What bash rewrites between the text and the exec, and how each is read here:
 * - quote removal (`r''m`, `"rm"`, `\rm`) and `$'…'` decoding: words are read by value;
 * - brace expansion (`{rm,-rf,x}`, `{"r"m,-rf,x}`, `x{1..3}`): done first, as bash does;
 * - globs (`*`, `?`, `[…]`, extglob), parameter, command, arithmetic and process substitution, `~`:
 *   their value is decided when the line runs, so such a word counts as any word it could become
 *   (`-r?` as `-rf`, `${X:-push}` as `push`, `~x/rm` as rm), as options only when getopt could take
 *   it as one (`*.log` holds a `.`: never); an unquoted expansion is also split into any number of
 *   words by `IFS` (so `IFS` changes need nothing more); extglob is refused by the parser;
 * - a program named by path (`/bin/rm`, `./rm`) is read by its last segment;
 * - GNU long options given as a unique prefix (`--rec`), short options bundled or apart: see
 *   optionSpellings.ts;
 * - wrappers that run another program (`command`, `builtin`, `exec`, `env`, `nice`, `timeout`,
 *   `xargs`, `sudo`, `find -exec`, `strace`, any other): each literal word of a sub-command is also
 *   read as where a command starts, whatever precedes it; after `xargs` and `parallel`, as followed
 *   by any words (those they read from their input);
 * - shell text handed over (`eval`, `bash -c`, `sh -c`, `su -c`, `trap`, `watch`, `ssh` and its
 *   `-o ProxyCommand`, `rsync -e`, `tar --to-command`, `env -S`, an `alias` value or `hash -p` path
 *   (read as followed by any arguments), git settings and `!` aliases given with `-c`, a
 *   here-string fed to a shell, `GIT_SSH_COMMAND=…` and other variables programs run): it is parsed and its commands read the
 *   same way; when it is computed or cannot be parsed, or a shell reads code from its input (a
 *   pipe, a here-document, `<(…)`), every deny and ask counts as matching (handedCode.ts);
 * - functions defined on the line: their bodies are sub-commands of the line (commandReader.ts);
 * - git: its global options before the subcommand, commands that do the same (`send-pack` for
 *   `push`), and a subcommand git does not know (an alias from any config) counting as any;
 * - npm: its aliases and abbreviations of commands (`npm publ` is `npm publish`, see npmCommands.ts).
 * Out of reach (a person or the allow rules' narrower reading covers them): code in files (`bash
 * script.sh`, `source f`, `make`, `npm run`), other languages (`python -c`, awk's `system()`),
 * commands other programs take in options not listed (`vim -c '!…'`, sed's `e`), and a program
 * copied or linked under another name.
 */

/** A deny or ask rule's words, ready for broad matching. */
export interface BroadPattern {
  /** The program's last path segment. */
  readonly program: string;
  /** For git and npm, the subcommand the rule names. */
  readonly subcommand?: string;
  readonly options: readonly OptionSpelling[];
  readonly operands: readonly string[];
  /** Whether further words may follow (a trailing `*`). */
  readonly prefix: boolean;
}

/** A sub-command read broadly: its words as shapes, where a command may start in them, and the shell text it hands over. */
export interface CommandReadings {
  readonly words: readonly WordShape[];
  /** Indexes in `words` where a program may start. */
  readonly starts: readonly number[];
  /** The commands of shell text it hands over. */
  readonly nested: readonly CommandReadings[];
  /** Why it runs shell text no rule can read (then every deny and ask matches), if it does. */
  readonly opaque?: string;
}

/** Where one sub-command may name this many places its program starts before it is matched without reading each. */
const MAX_STARTS = 64;
/** Programs that run a command with more arguments they read from their input. */
const ARGUMENT_ADDERS = new Set(['xargs', 'parallel']);
/** How deep shell text inside shell text is read. */
const MAX_DEPTH = 4;
const ANY_WORD: WordShape = { written: '$…', count: 'any', test: ANY_TEXT, baseTest: ANY_TEXT, mayBeOption: true };

/** Compiles a rule's words (quotes removed) for broad matching. */
export function broadPattern(words: readonly string[], prefix: boolean): BroadPattern {
  const program = baseName(words[0] ?? '');
  const { shorts, longs, operands } = splitOptions(words.slice(1).map(literalShape), false);
  const subcommand = program === 'git' || program === 'npm' ? operands[0]?.word.literal : undefined;
  const options = [...shorts, ...longs].map((option) => ruleOptionSpelling(program, subcommand, option));
  return { program, ...(subcommand ? { subcommand } : {}), options, operands: operands.map(({ word }) => word.literal!), prefix };
}

/** Reads a sub-command broadly (see the comment at the top). */
export function commandReadings(command: SubCommand, depth = 0): CommandReadings {
  const { words, stripped } = programShapes(command);
  // xargs and parallel add words read from their input after the command they run (`echo -rf x | xargs rm`).
  if (words.some((word) => ARGUMENT_ADDERS.has(baseName(word.literal ?? '')))) words.push(ANY_WORD);
  const starts = new Set<number>(words.length > 0 ? [0] : []);
  if (stripped > 0 && stripped < words.length) starts.add(stripped);
  words.forEach((word, index) => {
    if (word.literal !== undefined && word.literal !== '' && !word.literal.startsWith('-')) starts.add(index);
  });
  const nested: CommandReadings[] = [];
  let opaque: string | undefined;
  const takers = [...starts].filter((start) => CODE_TAKERS.has(baseName(words[start]!.literal ?? '')));
  // Only the program itself (past known wrappers) reads the line's input: `which bash` runs no shell.
  const handed = takers.map((start) => handedCode(command, words.slice(start), start === 0 || start === stripped));
  for (const code of [commandVariables(command), ...handed]) {
    for (const text of code.texts) {
      const line = depth >= MAX_DEPTH ? { unreadable: 'shell text nested too deep to read' } : handedLine(command, text);
      if ('unreadable' in line) opaque ??= line.unreadable;
      else nested.push(...line.commands.map((each) => commandReadings(each, depth + 1)));
    }
    opaque ??= code.opaque;
  }
  return { words, starts: [...starts].sort((a, b) => a - b), nested, ...(opaque ? { opaque } : {}) };
}

/** Whether a deny or ask pattern may match one of the commands a sub-command could run. */
export function readingsMatch(pattern: BroadPattern, readings: CommandReadings): boolean {
  if (readings.opaque) return true;
  let candidates = 0;
  for (const start of readings.starts) {
    if (!mayBeProgram(readings.words[start]!, pattern.program)) continue;
    // A line naming the program this often is not read place by place: it counts as matching.
    if (++candidates > MAX_STARTS) return true;
    if (matchesFrom(pattern, readings.words, start)) return true;
  }
  return readings.nested.some((nested) => readingsMatch(pattern, nested));
}

function mayBeProgram(word: WordShape, program: string): boolean {
  if (word.literal === undefined) return word.baseTest(program);
  const name = baseName(word.literal);
  return name === program || (program === 'git' && name.startsWith('git-'));
}

function matchesFrom(pattern: BroadPattern, words: readonly WordShape[], start: number): boolean {
  const head = words[start]!;
  // A word that may become several words may be the whole command.
  if (head.count === 'any' || head.count === 'many') return true;
  let rest = words.slice(start + 1);
  if (pattern.program === 'git') rest = gitArguments(head, rest, pattern.subcommand);
  if (pattern.program === 'npm') rest = npmArguments(rest, pattern.subcommand);
  const written = splitOptions(rest, true);
  if (!pattern.options.every((option) => optionGiven(option, written))) return false;
  if (!pattern.prefix && !onlyOptions(pattern.options, written)) return false;
  return pattern.prefix ? inOrder(pattern.operands, written.operands) : exactly(pattern.operands, written.operands);
}

/** git's arguments with its subcommand read as the rule's when it does the same or may be an alias (`git-push` is git push). */
function gitArguments(head: WordShape, rest: readonly WordShape[], subcommand: string | undefined): WordShape[] {
  const name = baseName(head.literal ?? '');
  const args = name.startsWith('git-') ? [literalShape(name.slice(4)), ...rest] : [...rest];
  if (subcommand === undefined) return args;
  const at = gitSubcommandIndex(['git', ...args.map((word) => word.literal)]) - 1;
  const given = args[at]?.literal;
  if (given === undefined) return args;
  if (gitCommandsLike(subcommand).includes(given)) args[at] = literalShape(subcommand);
  else if (mayBeGitAlias(given)) args[at] = ANY_WORD;
  return args;
}

/** npm's arguments with its command word read as the rule's when npm may run that for it (`npm publ` is npm publish). */
function npmArguments(rest: readonly WordShape[], subcommand: string | undefined): WordShape[] {
  const args = [...rest];
  const at = args.findIndex((word) => word.literal === undefined || !word.literal.startsWith('-'));
  const given = args[at]?.literal;
  if (subcommand !== undefined && given !== undefined && npmMayRun(given, subcommand)) args[at] = literalShape(subcommand);
  return args;
}

function literalShape(value: string): WordShape {
  return { written: value, literal: value, count: 'literal', test: (word) => word === value, baseTest: (name) => name === baseName(value), mayBeOption: value.startsWith('-') };
}

/** A word that is not an option; `optional` when it may be an option's glued value instead (`-XDELETE`, `--repo=origin`). */
interface Operand {
  readonly word: WordShape;
  readonly optional: boolean;
}

/**
 * A command's options (in any spelling, and whether a run-time word may be any) and its other
 * words. With `gluedValues`, what follows an option's letter or `=` also counts as a word the
 * command may take (`curl -XDELETE` and `curl --request=DELETE` for a rule naming DELETE).
 */
function splitOptions(words: readonly WordShape[], gluedValues: boolean): WrittenOptions & { operands: Operand[] } {
  const shorts = new Set<string>();
  const clusters: string[] = [];
  const longs: string[] = [];
  const operands: Operand[] = [];
  const glued = (value: string) => {
    if (gluedValues && value !== '') operands.push({ word: literalShape(value), optional: true });
  };
  let anyOption = false;
  let ended = false;
  for (const word of words) {
    const value = word.literal;
    if (value === undefined) {
      if (!ended && word.mayBeOption) anyOption = true;
      operands.push({ word, optional: false });
    } else if (ended || value === '-' || !value.startsWith('-')) operands.push({ word, optional: false });
    else if (value === '--') ended = true;
    else if (value.startsWith('--')) {
      const equals = value.indexOf('=');
      longs.push(value.slice(2, equals < 0 ? undefined : equals));
      if (equals >= 0) glued(value.slice(equals + 1));
    } else {
      clusters.push(value.slice(1));
      for (const letter of value.slice(1)) shorts.add(letter);
      for (let at = 2; at < value.length; at++) glued(value.slice(at));
    }
  }
  return { shorts, clusters, longs, anyOption, operands };
}

function fits(word: WordShape, wanted: string): boolean {
  return word.literal !== undefined ? word.literal === wanted : word.test(wanted);
}

/** Whether `wanted` may appear in `words` in order, not necessarily side by side (a glob may stand for several, an unquoted expansion for any). */
function inOrder(wanted: readonly string[], operands: readonly Operand[]): boolean {
  let at = 0;
  for (const { word } of operands) {
    if (at >= wanted.length) break;
    if (word.count === 'any') return true;
    if (!fits(word, wanted[at]!)) continue;
    at++;
    while (word.count === 'many' && at < wanted.length && fits(word, wanted[at]!)) at++;
  }
  return at === wanted.length;
}

/** Whether `operands` may be exactly `wanted` (an optional one may also be left out). */
function exactly(wanted: readonly string[], operands: readonly Operand[]): boolean {
  let reach = wanted.map(() => false).concat(false);
  reach[0] = true;
  for (const { word, optional } of operands) {
    const next = optional ? [...reach] : reach.map(() => false);
    reach.forEach((reached, from) => {
      if (!reached) return;
      if (word.count === 'any') for (let to = from; to <= wanted.length; to++) next[to] = true;
      else for (let to = from; to < wanted.length && fits(word, wanted[to]!); to++) {
        next[to + 1] = true;
        if (word.count !== 'many') break;
      }
    });
    reach = next;
  }
  return reach[wanted.length]!;
}
