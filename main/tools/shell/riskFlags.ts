import { isAbsolute, relative, resolve } from 'node:path';
import type { RiskFlag, RiskFlagKind, SubCommand } from '../../../shared/commandPreview';
import { baseName, programWords, type ProgramWords } from './programWords';
import { wordValue } from './shellWords';
import { gitSubcommandIndex } from '../../policy/gitCommands';
import { gitConfigTarget } from '../../policy/gitRepositoryUses';

/**
 * The risks of a command line, worked out from its sub-commands as bash would run them (see
 * programWords.ts: `"r"m`, `sudo env X=1 rm`, `{rm,-rf,x}` all count as rm). They lead the prompt as
 * badges, so that a dangerous part is seen first however long the line is. They warn; they do not
 * decide: the person does (and policy rules, which match the sub-commands themselves).
 */

const NETWORK_PROGRAMS = new Set(['curl', 'wget', 'nc', 'ncat', 'netcat', 'socat', 'ssh', 'scp', 'sftp', 'rsync', 'ftp', 'telnet', 'ping', 'dig', 'nslookup', 'host', 'aria2c', 'http', 'https', 'xh']);
const NETWORK_GIT = new Set(['push', 'pull', 'fetch', 'clone', 'ls-remote', 'submodule', 'remote']);
const NETWORK_PACKAGES = /^(npm|pnpm|yarn|bun|pip|pip3|gem|cargo|go|apt|apt-get|brew|docker|podman)$/;
const NETWORK_PACKAGE_VERBS = new Set(['install', 'i', 'ci', 'add', 'publish', 'update', 'upgrade', 'get', 'pull', 'push', 'fetch', 'dlx', 'x', 'exec', 'login']);
const DOWNLOADERS = new Set(['curl', 'wget', 'aria2c', 'fetch', 'http', 'xh']);
const PRIVILEGE = new Set(['sudo', 'su', 'doas', 'pkexec', 'runuser']);
const RUNS_INPUT = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'fish', 'python', 'python3', 'perl', 'ruby', 'node', 'php', 'eval', 'source', '.']);
const BACKGROUND = new Set(['nohup', 'disown', 'setsid', 'coproc', 'bg']);
/** Programs that write to the path given as their last argument. */
const COPIERS = new Set(['cp', 'mv', 'ln', 'install', 'rsync', 'scp']);
/** Programs that change or remove every path they are given. */
const CHANGERS = new Set(['tee', 'rm', 'rmdir', 'unlink', 'touch', 'mkdir', 'truncate', 'shred']);
/** Programs that change every path after their first operand (a mode or an owner). */
const ATTRIBUTE_CHANGERS = new Set(['chmod', 'chown', 'chgrp']);
/** Special files a redirection may write without leaving the workspace. */
const HARMLESS_TARGETS = /^(\/dev\/(null|stdout|stderr|tty|fd\/\d+)|&?-|&?\d+)$/;
const MAX_EVIDENCE = 240;
/** Variables that change what later commands run or load (PATH=., IFS=, BASH_ENV=, LD_PRELOAD=, …). */
const STEERING_VARIABLES = /^(PATH|IFS|BASH_ENV|ENV|CDPATH|GLOBIGNORE|SHELLOPTS|BASHOPTS|PS4|PROMPT_COMMAND|HOME|LD_[A-Z_]+|NODE_OPTIONS|PYTHON[A-Z_]*|PERL5[A-Z_]*|RUBYOPT|GIT_[A-Z_]+)\+?=/;

/** Where the line runs: the workspace root and the working directory, both absolute. */
export interface RunPlace {
  readonly workspace: string;
  readonly cwd: string;
}

/** The risk flags of a parsed command line, one per kind, in a fixed order, with what raised each. */
export function riskFlagsOf(commands: readonly SubCommand[], place: RunPlace): RiskFlag[] {
  const evidence = new Map<RiskFlagKind, Set<string>>();
  const raise = (kind: RiskFlagKind, what: string) => {
    const found = evidence.get(kind) ?? new Set<string>();
    found.add(what.length > MAX_EVIDENCE ? `${what.slice(0, MAX_EVIDENCE)}…` : what);
    evidence.set(kind, found);
  };
  for (const [index, command] of commands.entries()) {
    const shown = [command.text, ...command.redirects.map((redirect) => `${redirect.op} ${redirect.target}`)].join(' ');
    const words = programWords(command.argv);
    const program = baseName(words.argv[0] ?? '');
    const args = words.argv.slice(1);
    for (const wrapper of words.wrappers) {
      if (PRIVILEGE.has(wrapper)) raise('privilege', command.text);
      if (BACKGROUND.has(wrapper)) raise('background', command.text);
    }
    if (PRIVILEGE.has(program)) raise('privilege', command.text);
    if (BACKGROUND.has(program)) raise('background', command.text);
    if (command.connector === '&') raise('background', `${command.text} &`);
    // A prefix changes the environment of its program; a bare assignment counts when it steers later commands.
    for (const prefix of words.prefixes) if (words.argv.length > 0 || STEERING_VARIABLES.test(prefix)) raise('environment-prefix', prefix);
    if (command.runsCode.length > 0) raise('runs-hidden-code', command.text);
    if (reachesNetwork(program, args, command)) raise('network', shown);
    if (deletesRecursively(program, args)) raise('recursive-delete', command.text);
    if (feedsDownloadToShell(commands, index, words)) raise('download-to-shell', command.text);
    for (const target of writtenPaths(program, args, command)) {
      if (leavesWorkspace(target, place)) raise('outside-workspace', `${command.text} → ${target}`);
    }
    // Code a sub-command hands to a shell or interpreter is not parsed: its words still raise flags.
    for (const hidden of command.runsCode) {
      if (/\b(curl|wget|nc|ssh|scp)\b|\/dev\/(tcp|udp)\//.test(hidden.code)) raise('network', hidden.code);
      if (/\b(sudo|su|doas|pkexec)\b/.test(hidden.code)) raise('privilege', hidden.code);
      if (/\brm\s+(-\w*[rR]|--recursive)/.test(hidden.code)) raise('recursive-delete', hidden.code);
    }
  }
  const order = ['download-to-shell', 'privilege', 'recursive-delete', 'runs-hidden-code', 'network', 'outside-workspace', 'environment-prefix', 'background'] as const;
  return order.filter((kind) => evidence.has(kind)).map((kind) => ({ kind, evidence: [...evidence.get(kind)!] }));
}

function reachesNetwork(program: string, args: readonly string[], command: SubCommand): boolean {
  if (NETWORK_PROGRAMS.has(program)) return true;
  const verb = args.find((arg) => !arg.startsWith('-'));
  const gitVerb = gitSubcommandOf(program, args);
  if (gitVerb !== undefined && NETWORK_GIT.has(gitVerb)) return true;
  if (NETWORK_PACKAGES.test(program) && verb !== undefined && NETWORK_PACKAGE_VERBS.has(verb)) return true;
  if (program === 'npx' || program === 'pnpx' || program === 'bunx') return true;
  return [...command.argv, ...command.redirects.map((redirect) => redirect.target)].some((word) => /\/dev\/(tcp|udp)\//.test(word));
}

/** rm -r in any spelling (-r, -R, -rf, -fR, -vrf, --recursive), find -delete, git clean -d. */
function deletesRecursively(program: string, args: readonly string[]): boolean {
  const options = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined).filter((arg) => arg.startsWith('-'));
  if (program === 'rm') return options.some((option) => option === '--recursive' || option === '--dir' || /^-[a-zA-Z]*[rR]/.test(option));
  if (program === 'find') return args.includes('-delete');
  if (gitSubcommandOf(program, args) === 'clean') return options.some((option) => /^-[a-zA-Z]*d/.test(option));
  return false;
}

/** git's subcommand past its global options (`git -C dir -c k=v push` is a push); undefined for other programs. */
function gitSubcommandOf(program: string, args: readonly string[]): string | undefined {
  return program === 'git' ? args[gitSubcommandIndex([program, ...args]) - 1] : undefined;
}

/** A download piped on to a shell (`curl … | sh`), or a shell fed one (`bash <(curl …)`, `eval "$(wget -O- …)"`). */
function feedsDownloadToShell(commands: readonly SubCommand[], index: number, words: ProgramWords): boolean {
  const program = baseName(words.argv[0] ?? '');
  if (!RUNS_INPUT.has(program)) return false;
  const downloads = (command: SubCommand) => DOWNLOADERS.has(baseName(programWords(command.argv).argv[0] ?? ''));
  const command = commands[index]!;
  if (command.substitutions.some((substitution) => /\b(curl|wget|aria2c|fetch)\b/.test(substitution))) return true;
  // Walk back along the pipeline this command ends.
  for (let before = index - 1; before >= 0 && commands[before]!.connector?.startsWith('|'); before--) {
    if (downloads(commands[before]!)) return true;
  }
  return false;
}

/** The paths a sub-command writes: output redirections, the target of cp/mv/ln/install, dd's of=, what tee, rm, touch, mkdir, chmod… change. */
function writtenPaths(program: string, args: readonly string[], command: SubCommand): string[] {
  const targets = command.redirects.filter((redirect) => redirect.op.includes('>')).map((redirect) => redirect.target);
  const operands = args.filter((arg) => !arg.startsWith('-'));
  if (CHANGERS.has(program)) targets.push(...operands);
  if (ATTRIBUTE_CHANGERS.has(program)) targets.push(...operands.slice(1));
  if (COPIERS.has(program) && operands.length >= 2) {
    const into = args.findIndex((arg) => arg === '-t' || arg === '--target-directory');
    targets.push(into >= 0 && args[into + 1] ? args[into + 1]! : operands.at(-1)!);
  }
  if (program === 'dd') targets.push(...args.filter((arg) => arg.startsWith('of=')).map((arg) => arg.slice(3)));
  if (program === 'git') {
    const settings = gitConfigTarget([program, ...args]);
    if (settings === 'global') targets.push('~/.gitconfig');
    if (settings === 'system') targets.push('/etc/gitconfig');
  }
  return targets;
}

/** Whether a written path leaves the workspace, or is only known when the line runs ($HOME, ~, a glob). */
function leavesWorkspace(target: string, place: RunPlace): boolean {
  const { value, computed } = wordValue(target);
  if (HARMLESS_TARGETS.test(value)) return false;
  if (computed || value.startsWith('~')) return true;
  const absolute = resolve(place.cwd, value);
  const inside = relative(place.workspace, absolute);
  return inside === '..' || inside.startsWith(`..${'/'}`) || isAbsolute(inside);
}
