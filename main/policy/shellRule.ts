import type { SubCommand } from '../../shared/commandPreview';
import { GateError } from '../../shared/errors';
import { parseCommand } from '../tools/shell/parseCommand';
import { baseName, programWords } from '../tools/shell/programWords';
import { expandWord, wordValue, type WordValue } from '../tools/shell/shellWords';
import { awkProgramEffects } from './awkProgram';
import { gitSubcommandIndex } from './gitCommands';
import { RuleError } from './ruleText';
import { broadPattern, commandReadings, readingsMatch, type BroadPattern, type CommandReadings } from './shellReadings';

/**
 * Shell rules (`shell_exec(npm run test *)`, `shell_exec(git status)`) match the sub-commands of
 * the tree-sitter parse, word by word after quote removal, never as text or regex:
 * - a last word `*` (or Claude Code's `:*`) matches any further words: `ls *` never matches `lsof`;
 *   without it the words must be exactly these. `\*` or `'*'` is a literal star.
 * - an allow matches only a sub-command the engine can read whole: written as the rule says, with
 *   no environment prefix beyond a short safe list, no wrapper but harmless ones (`timeout`, `nice`,
 *   …), no substitution, no code handed over as text (`eval`, `sh -c`, `python -c`, heredocs fed to
 *   interpreters, `xargs`, `find -exec`, `git -c`).
 * - a deny or ask matches broadly, as every command bash could run from the sub-command
 *   (shellReadings.ts lists what bash rewrites between the text and the exec, and how each is
 *   read): the program by its base name wherever a wrapper puts it, options in any spelling
 *   (`-rf`, `-fr`, `-r -f`, `-Rf`, `--recursive --force`, `--rec --for`) and in any order, the rule's
 *   other words anywhere in order (`git -C . push` is still `git push`), and a word bash decides
 *   when the line runs (`-r?`, `$x`, `~`) as any word it could become.
 */

/** One compiled shell specifier. */
export interface ShellPattern {
  /** The words to match, quotes removed. */
  readonly words: readonly string[];
  /** Whether further words may follow (a trailing `*`). */
  readonly prefix: boolean;
  /** The words read for deny and ask rules. */
  readonly broad: BroadPattern;
}

/** A sub-command as the matchers read it, worked out once per call (not once per rule). */
export interface ShellView {
  readonly command: SubCommand;
  /** Why an allow cannot vouch for it, if it cannot. */
  readonly blocked?: string;
  /** The words that run (prefixes and wrappers aside), each with whether it is computed. */
  readonly run: readonly WordValue[];
  /** Every command bash could run from it, for deny and ask rules. */
  readonly readings: CommandReadings;
}

/** Environment prefixes an allow still matches through: they change only how output reads. */
const SAFE_PREFIXES = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|COLUMNS|TERM)=/;
/** Wrappers an allow looks through: they only limit or reprioritise the program they start. */
const HARMLESS_WRAPPERS = new Set(['timeout', 'nice', 'ionice', 'nohup', 'time', 'stdbuf']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'busybox']);
const INTERPRETERS = new Set([
  'python', 'python2', 'python3', 'node', 'nodejs', 'deno', 'bun', 'perl', 'ruby', 'php', 'lua', 'luajit', 'Rscript', 'R', 'julia', 'osascript',
  'awk', 'gawk', 'mawk', 'nawk', 'tclsh', 'wish', 'expect', 'jimsh', 'guile', 'racket', 'sbcl', 'clisp', 'ocaml', 'ghci', 'irb', 'jshell',
  'elixir', 'iex', 'erl', 'escript', 'pwsh', 'powershell', 'octave', 'gnuplot', 'raku', 'perl6', 'swipl', 'groovy', 'scala',
]);
/** An interpreter's options whose value is code (beyond one-letter -c, -e, -E, -p, -r, alone or ending a cluster). */
const INLINE_CODE_OPTION = /^--?(eval|print|command|encodedcommand|execute|expr|source|exec|ex|cmd|eval-command)(=|$)/i;
/**
 * Programs whose every run can execute commands of their own language, given as options, operands
 * or input (an editor's `:!`, sqlite3's `.shell` and readfile(), gdb's `shell`, dc's `!`, m4's
 * syscmd): an allow of them cannot vouch for what a run touches.
 */
const COMMAND_LANGUAGES = new Set([
  'vim', 'vi', 'nvim', 'ex', 'view', 'gvim', 'evim', 'rvim', 'rview', 'vimdiff', 'emacs', 'emacsclient', 'ed', 'red',
  'sqlite3', 'duckdb', 'psql', 'mysql', 'mariadb', 'gdb', 'lldb', 'dc', 'm4', 'lftp', 'ftp',
]);
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);
/** awk's options that only set how input is split or a variable's value (the next word, or glued). */
const AWK_PLAIN_OPTIONS = /^(-[Fv]|--field-separator|--assign)(=|$)|^-[Fv]./;
/** Programs that run text or files of code the line does not show. */
const RUNS_TEXT = new Set(['eval', 'source', '.', 'xargs', 'watch', 'trap', 'alias', 'exec', 'builtin', 'command', 'coproc', 'parallel', 'su', 'sudo', 'doas', 'env']);

/** Names Debian's alternatives give a language's program (`editor` is vim or nano, `pager` less). */
const ALTERNATIVES: Record<string, string> = { editor: 'vim', 'sensible-editor': 'vim', pager: 'less', 'sensible-pager': 'less', gdbtui: 'gdb' };

/**
 * The language a program's name says it runs: its base name without a version (`python3.11`,
 * `perl5.36.0`, `tclsh8.6`, `lua5.4`) or a build's suffix (`vim.basic`, `vim.tiny`), when what is
 * left names a known shell, interpreter or command language; otherwise the base name as it is.
 */
function languageOf(program: string): string {
  const name = baseName(program);
  const known = (candidate: string) => SHELLS.has(candidate) || INTERPRETERS.has(candidate) || COMMAND_LANGUAGES.has(candidate);
  if (ALTERNATIVES[name]) return ALTERNATIVES[name];
  if (known(name)) return name;
  const unversioned = name.replace(/[-.]?\d+(\.\d+)*$/, '');
  const unsuffixed = name.replace(/\.[a-z0-9]+$/, '');
  return [unversioned, unsuffixed].find(known) ?? name;
}

/** Whether a program runs whatever code it is handed (a shell, an interpreter, eval, sudo): an allow of it allows anything. */
export function runsAnyCode(program: string): boolean {
  const name = languageOf(program);
  return SHELLS.has(name) || INTERPRETERS.has(name) || RUNS_TEXT.has(name) || COMMAND_LANGUAGES.has(name);
}

/** Compiles a shell specifier by parsing it as one simple command; throws RuleError when it is not one. */
export async function compileShellPattern(specifier: string): Promise<ShellPattern> {
  let legacyPrefix = false;
  let text = specifier.trim();
  if (text.endsWith(':*')) {
    legacyPrefix = true;
    text = text.slice(0, -2);
  }
  let commands: SubCommand[];
  try {
    commands = await parseCommand(text);
  } catch (error) {
    throw new RuleError(`the command ${JSON.stringify(specifier)} cannot be read (${error instanceof GateError ? error.message : String(error)})`, 'write one plain command, e.g. shell_exec(git status)');
  }
  if (commands.length !== 1 || commands[0]!.substitutions.length > 0 || commands[0]!.redirects.length > 0 || commands[0]!.argv.length === 0) {
    throw new RuleError(
      `${JSON.stringify(specifier)} is not one plain command (a rule matches each sub-command of a line on its own)`,
      'write one rule per command, without ;, &&, |, redirections or $(…), e.g. shell_exec(npm run test *)',
    );
  }
  const argv = commands[0]!.argv;
  const prefix = legacyPrefix || argv.at(-1) === '*';
  const written = argv.at(-1) === '*' && !legacyPrefix ? argv.slice(0, -1) : argv;
  if (written.length === 0) throw new RuleError(`${JSON.stringify(specifier)} names no program`, 'write the bare tool name (shell_exec) to match every command, or a program first');
  const words = written.map((word) => wordValue(word).value);
  if (written.includes('*')) {
    throw new RuleError(`${JSON.stringify(specifier)} has a * that is not its last word`, 'a * may only end a shell rule; write \\* for a literal star');
  }
  return { words, prefix, broad: broadPattern(words, prefix) };
}

/** Reads a sub-command once for every rule that will look at it. */
export function shellView(command: SubCommand): ShellView {
  const words = programWords(command.argv);
  const values = valuesOf(command.argv.slice(words.prefixes.length));
  const run = values.slice(values.length - words.argv.length);
  const blocked = unreadableForAllow(command);
  let readings: CommandReadings | undefined;
  return {
    command,
    ...(blocked ? { blocked } : {}),
    run,
    // Read on first use: a call that no deny or ask rule looks at never pays for it.
    get readings() {
      return (readings ??= commandReadings(command));
    },
  };
}

/** The command's words as bash passes them, each with whether it is computed when it runs. */
function valuesOf(argv: readonly string[]): WordValue[] {
  return argv.flatMap((word) => expandWord(word));
}

/** Why an allow cannot vouch for this sub-command (it runs code or programs the line does not show), or undefined. */
export function unreadableForAllow(command: SubCommand): string | undefined {
  if (command.substitutions.length > 0) return 'it holds a substitution ($(…), `…`, <(…)), whose output the rule cannot see';
  const words = programWords(command.argv);
  const unsafe = words.prefixes.find((prefix) => !SAFE_PREFIXES.test(prefix));
  if (unsafe) return `the environment prefix ${unsafe.slice(0, unsafe.indexOf('=') + 1)}… changes what the program does`;
  if (words.computedProgram) return 'the program name is computed when the line runs';
  const wrapper = words.wrappers.find((name) => !HARMLESS_WRAPPERS.has(name));
  if (wrapper) return `${wrapper} runs another program`;
  const program = languageOf(words.argv[0] ?? '');
  const args = words.argv.slice(1);
  if (RUNS_TEXT.has(program)) return `${program} runs code or programs the line does not show`;
  if (SHELLS.has(program) || INTERPRETERS.has(program)) {
    const fedInput = command.redirects.some((redirect) => redirect.op.startsWith('<<') || redirect.op === '<');
    const inline = args.some((arg) => /^-[a-zA-Z]*[ceEpr]$/.test(arg) || INLINE_CODE_OPTION.test(arg));
    if (fedInput || inline || !args.some((arg) => !arg.startsWith('-'))) return `${program} runs code handed to it as text or input`;
  }
  if (AWKS.has(program)) {
    const effects = awkEffects(command, args);
    if (effects) return `${program}: ${effects}`;
  }
  if (COMMAND_LANGUAGES.has(program)) return `${program} runs commands of its own language, which can read, write and run anything the rules cannot see`;
  if ((program === 'make' || program === 'gmake') && args.some((arg) => /^(-E|--eval)(=|$)|^-E./.test(arg))) return `${program} --eval runs makefile text, whose recipes and $(shell …) the rules cannot read`;
  if (['less', 'more', 'most'].includes(program) && args.some((arg) => arg.startsWith('+'))) return `${program} runs the commands given with + (! runs a shell command)`;
  if (program === 'man' && args.some((arg) => /^(-[a-zA-Z]*[PH]|--pa(g(e(r)?)?)?(=|$)|--h(t(m(l)?)?)?(=|$))/.test(arg))) return 'man runs the pager or browser it is given';
  if (program === 'find' && args.some((arg) => /^-(exec|execdir|ok|okdir)$/.test(arg))) return 'find -exec runs another program';
  // Git's own -c, before its subcommand (`git switch -c topic` is a new branch).
  const globals = program === 'git' ? args.slice(0, gitSubcommandIndex([program, ...args]) - 1) : [];
  if (globals.some((arg) => arg.startsWith('-c') || arg.startsWith('--config-env'))) return 'git -c may set a command git runs';
  if (command.runsCode.some((code) => code.why.startsWith('calls the function'))) return 'it calls a function defined on the line';
  return undefined;
}

/**
 * What an awk program handed on the line does besides reading its input and printing (awkProgram.ts),
 * or undefined. A program from a file (-f) is code in a file, judged as `python3 x.py` is.
 */
function awkEffects(command: SubCommand, args: readonly string[]): string | undefined {
  let at = 0;
  for (; at < args.length && args[at]!.startsWith('-') && args[at] !== '-'; at++) {
    const option = args[at]!;
    if (option === '--') {
      at++;
      break;
    }
    if (/^(-f|--file(=|$))/.test(option)) {
      const file = /^(-f|--file=)./.test(option) ? option.replace(/^(-f|--file=)/, '') : args[at + 1];
      return file === '-' ? 'its program is read from its input, which the rules cannot read' : undefined;
    }
    // Any other option (gawk's -W source=, -i FILE, -l LIB, -o/-p/-d FILE, -D, mawk's -W exec) may load code or write a file.
    if (!AWK_PLAIN_OPTIONS.test(option)) return `its option ${option} may load code or write a file, which the rules cannot read`;
    if (/^(-[Fv]|--field-separator|--assign)$/.test(option)) at++;
  }
  const program = args[at];
  if (program === undefined) return undefined;
  // The program as written: a part bash computes (`awk "$p"`) could be any program.
  const written = command.argv.flatMap((word) => expandWord(word));
  const fromEnd = args.length - at;
  const word = written[written.length - fromEnd];
  if (word?.value !== program || word.computed) return 'its program is computed when the line runs';
  return awkProgramEffects(program);
}

/** Whether an allow pattern matches the sub-command exactly as written (prefixes and harmless wrappers aside). */
export function allowMatches(pattern: ShellPattern, view: ShellView): boolean {
  if (view.blocked) return false;
  const { run } = view;
  if (run.length < pattern.words.length || (!pattern.prefix && run.length !== pattern.words.length)) return false;
  return pattern.words.every((word, index) => !run[index]!.computed && run[index]!.value === word);
}

/** Whether a deny or ask pattern may match a command bash could run from the sub-command (fail closed). */
export function broadMatches(pattern: ShellPattern, view: ShellView): boolean {
  return readingsMatch(pattern.broad, view.readings);
}

/** A file a sub-command's redirection reads or writes. */
export interface RedirectedPath {
  readonly access: 'read' | 'write';
  /** The target as bash reads it (quotes removed); computed when it holds an expansion. */
  readonly target: WordValue;
  /** The redirection as written, for provenance. */
  readonly written: string;
}

/** Special files a redirection may name without touching a file. */
const NO_FILE = /^(\/dev\/(null|stdout|stderr|tty|fd\/\d+)|&?-|&?\d+)$/;

/** The files a sub-command's redirections read or write (not descriptors, not here-documents). */
export function redirectedPaths(command: SubCommand): RedirectedPath[] {
  const found: RedirectedPath[] = [];
  for (const redirect of command.redirects) {
    const op = redirect.op.replace(/^\d+/, '');
    // `>& file` is bash's `&> file`: only a descriptor (`>&2`) or `-` as its target names no file
    // (the grammar reads `>&-` as one operator with no target).
    const closes = /&-$/.test(op) && redirect.target.trim() === '';
    if (op.startsWith('<<') || closes || NO_FILE.test(redirect.target.trim())) continue;
    const access = op.startsWith('<') && op !== '<>' ? 'read' : 'write';
    // bash expands the target's braces too (`< secre{t..t}/key` reads secret/key); more than one word is an ambiguous redirect, each judged all the same.
    for (const target of expandWord(redirect.target.trim())) found.push({ access, target, written: `${redirect.op} ${redirect.target}` });
  }
  return found;
}

/** Escapes a command for a generated rule: every word matched literally (a `*` in it stays a star, not "anything"). */
export function literalShellRule(command: string): string {
  return command.trim().replace(/(^|\s)\*(?=\s|$)/g, '$1\\*');
}
