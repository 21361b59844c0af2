import type { HiddenCode } from '../../../shared/commandPreview';
import { baseName, type ProgramWords } from './programWords';
import { gitSubcommandIndex, gitVerbIndex } from '../../policy/gitCommands';
import { shellQuote } from './shellQuote';

/**
 * Code a sub-command runs that the prompt cannot list as commands: a string handed to `eval` or
 * `bash -c`, a file `source` reads, a script `npm run` looks up, a program `find -exec` or `xargs`
 * starts, an interpreter's `-c`/`-e` code, a git alias or pager, a computed program name. The
 * prompt flags each "runs code not shown here" and shows the code itself, as far as the line holds it.
 */

/** awk programs can run commands (system(), pipes to and from commands). */
/** Programs whose -c option is a command line they hand to a shell. */
const THROUGH_SHELL = new Set(['su', 'runuser', 'script', 'flock']);
const AWKS = new Set(['awk', 'gawk', 'mawk', 'nawk']);
/** Programs that run a command later, elsewhere or many times (their arguments are a command line). */
const SCHEDULERS = new Set(['at', 'batch', 'crontab', 'parallel', 'systemd-run', 'screen', 'tmux', 'nsenter', 'unshare', 'chroot']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'mksh', 'fish', 'ash', 'busybox']);
/** Interpreters and the options that take inline code. */
const INTERPRETERS: Record<string, string[]> = {
  python: ['-c'],
  python2: ['-c'],
  python3: ['-c'],
  node: ['-e', '-p', '--eval', '--print'],
  nodejs: ['-e', '-p', '--eval', '--print'],
  deno: ['eval'],
  bun: ['-e', '--eval'],
  perl: ['-e', '-E'],
  ruby: ['-e'],
  php: ['-r'],
  lua: ['-e'],
  Rscript: ['-e'],
  osascript: ['-e'],
};
/** Package managers: the subcommands that run scripts or packages' code (install runs install scripts). */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun']);
const PACKAGE_RUNNERS = new Set(['run', 'run-script', 'exec', 'x', 'dlx', 'start', 'test', 'restart', 'stop', 'install', 'i', 'ci', 'add', 'rebuild']);
/** git settings whose value git runs as a command. */
const GIT_COMMAND_SETTINGS = /^(alias\..*|core\.(pager|sshcommand|fsmonitor|editor|hookspath|askpass|gitproxy)|init\.templatedir|pager\..*|diff\.external|sequence\.editor|gpg\..*program|credential\..*|uploadpack\..*|.*\.(textconv|command|cmd|clean|smudge|process|program|helper))$/i;

/** The code `words` runs that is not shown as commands, with how it runs it. */
export function hiddenCodeOf(words: ProgramWords, prefixWritten: readonly string[] = words.prefixes): HiddenCode[] {
  const found: HiddenCode[] = [];
  for (const prefix of prefixWritten) {
    if (/^(BASH_ENV|ENV|PROMPT_COMMAND|LD_PRELOAD|LD_LIBRARY_PATH|NODE_OPTIONS|PYTHONSTARTUP|PERL5OPT|GIT_SSH_COMMAND|GIT_EXTERNAL_DIFF)=/.test(prefix)) {
      found.push({ why: `${prefix.slice(0, prefix.indexOf('='))} makes the program load or run this`, code: prefix.slice(prefix.indexOf('=') + 1) });
    }
  }
  const [written = '', ...args] = words.argv;
  if (words.computedProgram) found.push({ why: 'the program name is computed when the line runs', code: written });
  const program = baseName(written);
  const rest = (from: number) => args.slice(from).join(' ');
  if (program === 'eval') found.push({ why: 'eval runs this text as shell code', code: rest(0) });
  else if (SHELLS.has(program)) found.push(...shellCode(program, args));
  else if (program === 'source' || program === '.') found.push({ why: `${program} runs this file's commands in this shell`, code: args[0] ?? '' });
  else if (program === 'trap' && args.length >= 2 && args[0] !== '-' && !args[0]!.startsWith('-')) found.push({ why: 'trap runs this code when the signal comes', code: args[0]! });
  else if (program === 'alias' && args.length > 0) found.push({ why: 'alias defines commands that run in place of others', code: rest(0) });
  else if (program === 'find') found.push(...findCode(args));
  else if (program === 'xargs') found.push({ why: 'xargs runs this command with arguments read from its input', code: afterOptions(args, ['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs']) || 'echo' });
  else if (program === 'watch') found.push({ why: 'watch runs this through sh -c, again and again', code: afterOptions(args, ['-n', '-d', '--interval']) });
  else if (program === 'git') found.push(...gitCode(args));
  else if (program in INTERPRETERS) found.push(...interpreterCode(program, args));
  else if (program === 'npx' || program === 'bunx' || program === 'pnpx') found.push({ why: `${program} downloads or runs a package's code`, code: rest(0) });
  else if (PACKAGE_MANAGERS.has(program) && PACKAGE_RUNNERS.has(args.find((arg) => !arg.startsWith('-')) ?? '')) {
    found.push({ why: `${program} ${args.find((arg) => !arg.startsWith('-'))} runs scripts from package.json or a package's install scripts`, code: rest(0) });
  } else if (program === 'make' || program === 'gmake') found.push({ why: `${program} runs the recipes of the Makefile`, code: rest(0) || '(the default target)' });
  else if (program === 'ssh') found.push(...sshCode(args));
  else if (THROUGH_SHELL.has(program) && shortOptionValue(args, 'c') !== undefined) {
    found.push({ why: `${program} -c runs this through a shell`, code: shortOptionValue(args, 'c')! });
  } else if (AWKS.has(program)) found.push(awkCode(program, args));
  else if (SCHEDULERS.has(program)) found.push({ why: `${program} runs commands later or elsewhere, from its arguments or input`, code: rest(0) || '(its standard input)' });
  return found;
}

function afterOptions(args: readonly string[], valueOptions: readonly string[]): string {
  let at = 0;
  while (at < args.length && args[at]!.startsWith('-')) at += valueOptions.includes(args[at]!) ? 2 : 1;
  return args.slice(at).join(' ');
}

function shellCode(program: string, args: readonly string[]): HiddenCode[] {
  const options: string[] = [];
  let at = 0;
  for (; at < args.length && /^[-+]/.test(args[at]!) && args[at] !== '--'; at++) {
    options.push(args[at]!);
    if (args[at] === '-o' || args[at] === '+o' || args[at] === '-O' || args[at] === '+O' || args[at] === '--rcfile' || args[at] === '--init-file') at++;
  }
  if (program === 'busybox') return [{ why: 'busybox runs this applet', code: args.join(' ') }];
  if (options.some((option) => /^-[a-zA-Z]*c[a-zA-Z]*$/.test(option))) return [{ why: `${program} -c runs this text as shell code`, code: args[at] ?? '' }];
  if (args[at] === '--') at++;
  if (at < args.length) return [{ why: `${program} runs the commands in this file`, code: args[at]! }];
  return [{ why: `${program} runs whatever it reads from its input as shell code`, code: '(its standard input)' }];
}

function interpreterCode(program: string, args: readonly string[]): HiddenCode[] {
  const inline = INTERPRETERS[program]!;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    const glued = inline.find((option) => option.length === 2 && arg.startsWith(option) && arg.length > 2 && !arg.startsWith('--'));
    // `perl -pe CODE`, `python3 -Bc CODE`: a cluster of short options ending in the one that takes code.
    const cluster = /^-[a-zA-Z]+$/.test(arg) && inline.includes(`-${arg.at(-1)}`);
    if (inline.includes(arg) || cluster) return [{ why: `${program} ${arg} runs this code`, code: args[at + 1] ?? '' }];
    if (glued) return [{ why: `${program} ${glued} runs this code`, code: arg.slice(2) }];
    if (arg === '-m' && program.startsWith('python')) return [{ why: `${program} -m runs this module`, code: args.slice(at + 1).join(' ') }];
    if (!arg.startsWith('-')) return [{ why: `${program} runs the code in this file`, code: arg }];
  }
  return [{ why: `${program} runs whatever code it reads from its input`, code: '(its standard input)' }];
}

function findCode(args: readonly string[]): HiddenCode[] {
  const found: HiddenCode[] = [];
  for (let at = 0; at < args.length; at++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(args[at]!)) continue;
    const end = args.findIndex((arg, index) => index > at && (arg === ';' || arg === '+'));
    found.push({ why: `find ${args[at]} runs this command for each file it finds`, code: args.slice(at + 1, end < 0 ? undefined : end).join(' ') });
  }
  return found;
}

function gitCode(args: readonly string[]): HiddenCode[] {
  const found: HiddenCode[] = [];
  const at = gitSubcommandIndex(['git', ...args]) - 1;
  for (let index = 0; index < Math.min(at, args.length); index++) {
    const arg = args[index]!;
    const setting = arg === '-c' ? args[index + 1] : arg.startsWith('-c') && arg.length > 2 ? arg.slice(2) : undefined;
    const fromEnv = arg.startsWith('--config-env=') ? arg.slice('--config-env='.length) : arg === '--config-env' ? args[index + 1] : undefined;
    const pair = setting ?? fromEnv;
    if (pair !== undefined) {
      const key = pair.slice(0, pair.includes('=') ? pair.indexOf('=') : undefined);
      if (GIT_COMMAND_SETTINGS.test(key)) found.push({ why: `git -c ${key} makes git run this`, code: pair.slice(key.length + 1) });
    }
    // Programs git does not build in (an alias's `git-NAME`, scripts) are looked up there first.
    const execPath = arg.startsWith('--exec-path=') ? arg.slice('--exec-path='.length) : undefined;
    if (execPath) found.push({ why: 'git --exec-path runs its commands from this folder', code: execPath });
  }
  const subcommand = args[at];
  return subcommand === undefined ? found : [...found, ...gitCommandCode(subcommand, args.slice(at + 1))];
}

/**
 * Options of git's own commands whose value git runs as a shell command: `rebase --exec`,
 * `filter-branch --tree-filter`, `difftool --extcmd`, `clone --upload-pack`, `send-email --to-cmd`…
 * (a long option by any prefix, as git takes it).
 */
const GIT_COMMAND_OPTIONS: Record<string, { shorts: string[]; longs: string[] }> = {
  rebase: { shorts: ['x'], longs: ['exec'] },
  'filter-branch': { shorts: [], longs: ['env-filter', 'tree-filter', 'index-filter', 'parent-filter', 'msg-filter', 'commit-filter', 'tag-name-filter'] },
  difftool: { shorts: ['x'], longs: ['extcmd'] },
  // --exec is an older name of --upload-pack that git still takes.
  clone: { shorts: ['u'], longs: ['upload-pack', 'exec'] },
  fetch: { shorts: [], longs: ['upload-pack', 'exec'] },
  pull: { shorts: [], longs: ['upload-pack', 'exec'] },
  'ls-remote': { shorts: [], longs: ['upload-pack', 'exec'] },
  'fetch-pack': { shorts: [], longs: ['upload-pack', 'exec'] },
  archive: { shorts: [], longs: ['exec'] },
  push: { shorts: [], longs: ['receive-pack', 'exec'] },
  'send-pack': { shorts: [], longs: ['receive-pack', 'exec'] },
  'send-email': { shorts: [], longs: ['to-cmd', 'cc-cmd', 'header-cmd', 'sendmail-cmd', 'smtp-server'] },
  instaweb: { shorts: ['d', 'b'], longs: ['httpd', 'browser'] },
};

/** The commands a git subcommand is told to run on its line: by an option, or as its arguments (`submodule foreach`, `bisect run`). */
function gitCommandCode(subcommand: string, args: readonly string[]): HiddenCode[] {
  const options = GIT_COMMAND_OPTIONS[subcommand];
  if (options) return optionValues(args, options.shorts, options.longs).map((code) => ({ why: `git ${subcommand} runs this command`, code }));
  // grep's pager is optional and glued: -Oless, --open-files-in-pager=less (`-O` alone is the configured pager).
  if (subcommand === 'grep') {
    return args.flatMap((arg) => {
      const long = /^--([^=]+)=(.*)$/s.exec(arg);
      const code = long && 'open-files-in-pager'.startsWith(long[1]!) ? long[2] : /^-[a-zA-Z]*O(.+)$/s.exec(arg)?.[1];
      return code ? [{ why: 'git grep opens the files it finds with this command', code }] : [];
    });
  }
  // Any word past the options may be the verb: one git would refuse after them still counts.
  const verb = gitVerbIndex(subcommand, args, 'past-options');
  // foreach runs one argument through the shell, several as a command with its arguments; bisect run, as a command.
  const command = (from: number): string => (args.length - from === 1 ? args[from]! : args.slice(from).map(shellQuote).join(' '));
  if (subcommand === 'submodule' && args[verb] === 'foreach') {
    let from = verb + 1;
    while (from < args.length && args[from]!.startsWith('-')) from++;
    if (from < args.length) return [{ why: 'git submodule foreach runs this command in every submodule', code: command(from) }];
  }
  if (subcommand === 'bisect' && args[verb] === 'run' && verb + 1 < args.length) return [{ why: 'git bisect run runs this command at each step', code: command(verb + 1) }];
  return [];
}

function sshCode(args: readonly string[]): HiddenCode[] {
  let at = 0;
  while (at < args.length && args[at]!.startsWith('-')) at += /^-[bcDEeFIiJLlmOopQRSWw]$/.test(args[at]!) ? 2 : 1;
  const remote = args.slice(at + 1).join(' ');
  return remote ? [{ why: `ssh runs this on ${args[at]}`, code: remote }] : [];
}

function awkCode(program: string, args: readonly string[]): HiddenCode {
  const file = args.indexOf('-f');
  if (file >= 0) return { why: `${program} runs the program in this file`, code: args[file + 1] ?? '' };
  let at = 0;
  while (at < args.length && args[at]!.startsWith('-')) at += ['-F', '-v'].includes(args[at]!) ? 2 : 1;
  return { why: `${program} runs this program (system() and pipes in it start commands)`, code: args[at] ?? '' };
}

/** The value of a short option given alone (-c x) or ending a cluster (-qc x). */
function shortOptionValue(args: readonly string[], letter: string): string | undefined {
  const at = args.findIndex((arg) => new RegExp(`^-[a-zA-Z]*${letter}$`).test(arg));
  return at < 0 ? undefined : (args[at + 1] ?? '');
}

/**
 * The shell text a program is handed to run (eval's words, `sh -c` text, `su -c`, a trap, an
 * alias's value or `hash -p`'s path with the arguments it will get, watch, ssh's remote command
 * and its -o ProxyCommand, rsync -e, tar's command options, split --filter, sort --compress-program, man -P,
 * zip -TT, `env -S`, git settings git runs), for the rules to
 * read as commands of their own. Code in files, piped in, or in other languages is not in it.
 */
export function shellTextsOf(argv: readonly string[]): string[] {
  const [written = '', ...args] = argv;
  const program = baseName(written);
  if (program === 'eval') return [args.join(' ')];
  if (program === 'busybox') return args.length > 0 ? [args.join(' ')] : [];
  if (SHELLS.has(program)) return shellCode(program, args).filter((code) => code.why.includes(' -c ')).map((code) => code.code);
  if (THROUGH_SHELL.has(program)) return shortOptionValue(args, 'c') === undefined ? [] : [shortOptionValue(args, 'c')!];
  if (program === 'trap' && args.length >= 2 && !args[0]!.startsWith('-')) return [args[0]!];
  // An alias or a hashed path runs later with any arguments: its text is read as followed by them.
  if (program === 'alias') return args.filter((arg) => arg.includes('=')).map((arg) => `${arg.slice(arg.indexOf('=') + 1)} "$@"`);
  if (program === 'hash' && args.includes('-p')) return [`${shellQuote(args[args.indexOf('-p') + 1] ?? '')} "$@"`];
  if (program === 'watch') return [afterOptions(args, ['-n', '-d', '--interval'])];
  if (program === 'ssh' || program === 'scp' || program === 'sftp') return [...(program === 'ssh' ? sshCode(args).map((code) => code.code) : []), ...sshLocalCommands(args)];
  if (program in COMMAND_OPTIONS) return commandOptionValues(program, args);
  if (program === 'env') return args.flatMap((arg, at) => (arg === '-S' || arg === '--split-string' ? [args[at + 1] ?? ''] : /^(-S|--split-string=)./s.test(arg) ? [arg.replace(/^(-S|--split-string=)/, '')] : []));
  if (program === 'git') {
    // An alias's value is a git command line, or with a leading ! a shell command line.
    return gitCode(args).map((code) => (!/^git -c alias\./.test(code.why) ? code.code : code.code.startsWith('!') ? code.code.slice(1) : `git ${code.code}`));
  }
  return [];
}

/** Options whose value a program runs as a shell command (or as a program, which a rule reads the same way). */
const COMMAND_OPTIONS: Record<string, { shorts: string[]; longs: string[]; twoLetters?: string[] }> = {
  rsync: { shorts: ['e'], longs: ['rsh', 'rsync-path'] },
  tar: { shorts: ['I', 'F'], longs: ['to-command', 'use-compress-program', 'checkpoint-action', 'info-script', 'new-volume-script', 'rsh-command'] },
  // GNU split hands each piece to `$SHELL -c FILTER`.
  split: { shorts: [], longs: ['filter'] },
  // sort runs PROG to compress and PROG -d to read back its temporary files.
  sort: { shorts: [], longs: ['compress-program'] },
  // zip -T runs the -TT command (through the shell) to test the archive.
  zip: { shorts: [], longs: ['unzip-command'], twoLetters: ['TT'] },
  // man pipes the page through the -P pager, run by the shell.
  man: { shorts: ['P'], longs: ['pager'] },
};

/** The commands `program` (one of COMMAND_OPTIONS) is told to run by its options. */
function commandOptionValues(program: string, args: readonly string[]): string[] {
  const { shorts, longs, twoLetters } = COMMAND_OPTIONS[program]!;
  const oldStyle = program === 'tar' ? tarOldStyleValues(args) : [];
  return [...oldStyle, ...optionValues(args, shorts, longs, twoLetters).map((value) => value.replace(/^exec=/, ''))];
}

/** tar's letters that take a value, in its old style of options. */
const TAR_VALUE_LETTERS = 'bCfFgHIKLNTVX';

/**
 * The commands of tar's old-style options (`tar xIf CMD t.tar`): a first word of letters without a
 * dash, whose letters that take a value take the words after it, in order.
 */
function tarOldStyleValues(args: readonly string[]): string[] {
  const letters = args[0];
  if (letters === undefined || !/^[a-zA-Z]+$/.test(letters)) return [];
  const found: string[] = [];
  let next = 1;
  for (const letter of letters) {
    if (!TAR_VALUE_LETTERS.includes(letter)) continue;
    const value = args[next++];
    if ((letter === 'I' || letter === 'F') && value !== undefined) found.push(value);
  }
  return found;
}

/** The programs with options whose value they run (rsync, tar, split, sort, zip). */
export const COMMAND_OPTION_PROGRAMS: readonly string[] = Object.keys(COMMAND_OPTIONS);

/**
 * The values of the given options: `-e CMD`, `-eCMD`, `-avze CMD`, `--rsh CMD`, `--rsh=CMD`, and a long option
 * written as any prefix of its name (`--filt=CMD`: GNU getopt_long takes a unique prefix; an
 * ambiguous one is counted too, which only makes a deny hold more).
 */
function optionValues(args: readonly string[], shorts: readonly string[], longs: readonly string[], twoLetters: readonly string[] = []): string[] {
  const found: string[] = [];
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    if (arg === '--') break;
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(arg);
    const two = twoLetters.find((letters) => arg.startsWith(`-${letters}`));
    if (long && longs.some((name) => name.startsWith(long[1]!))) found.push(long[2] ?? args[++at] ?? '');
    else if (!long && two) found.push(arg.length > two.length + 1 ? arg.slice(two.length + 1) : (args[++at] ?? ''));
    else if (!long && /^-[^-]/.test(arg)) {
      // A cluster of short options ends in the one that takes the command: `rsync -avze CMD`, `-aveCMD`.
      const letters = /^-([a-zA-Z0-9]*)/.exec(arg)![1]!;
      const taker = [...letters].findIndex((letter) => shorts.includes(letter));
      if (taker >= 0) found.push(arg.length > taker + 2 ? arg.slice(taker + 2) : (args[++at] ?? ''));
    }
  }
  return found;
}

/** Commands ssh runs on this machine: -o ProxyCommand=…, LocalCommand, KnownHostsCommand. */
function sshLocalCommands(args: readonly string[]): string[] {
  return optionValues(args, ['o'], [])
    .map((value) => /^(?:ProxyCommand|LocalCommand|KnownHostsCommand)\s*[=\s]\s*(.*)$/is.exec(value)?.[1])
    .filter((command): command is string => command !== undefined);
}
