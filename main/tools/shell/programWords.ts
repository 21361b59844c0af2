import { expandWord, isAssignment } from './shellWords';

/**
 * A sub-command's words as bash passes them (quotes removed, braces expanded), split into the
 * environment prefixes, the wrappers that run another program (`sudo`, `env`, `timeout 5`, `nohup`,
 * `command`, …) and the program that finally runs with its arguments. Risk flags and hidden code
 * are judged on these, so that `"r"m`, `$'\x72m'`, `{rm,-rf,x}` and `sudo env X=1 rm` all read as rm.
 */
export interface ProgramWords {
  /** Assignments before the program, as written (`PATH=.`), and those an `env` wrapper sets. */
  readonly prefixes: string[];
  /** The wrapper programs in front of the one that runs, outermost first (e.g. ['sudo', 'nohup']). */
  readonly wrappers: string[];
  /** The program that runs with its arguments ([] for a bare assignment). */
  readonly argv: string[];
  /** Whether the program's name is computed when it runs ($cmd, `…`, a glob). */
  readonly computedProgram: boolean;
}

/** Wrappers that run the program after their options; the options listed take a value of their own. */
const WRAPPERS: Record<string, { valueOptions: string[]; operands?: number }> = {
  command: { valueOptions: [] },
  builtin: { valueOptions: [] },
  exec: { valueOptions: ['-a'] },
  nohup: { valueOptions: [] },
  setsid: { valueOptions: [] },
  time: { valueOptions: ['-f', '-o', '--format', '--output'] },
  sudo: { valueOptions: ['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U', '-T'] },
  doas: { valueOptions: ['-u', '-C'] },
  pkexec: { valueOptions: ['--user'] },
  runuser: { valueOptions: ['-u', '-g', '-G'] },
  env: { valueOptions: ['-u', '-C', '--unset', '--chdir'] },
  nice: { valueOptions: ['-n'] },
  ionice: { valueOptions: ['-c', '-n', '-p'] },
  timeout: { valueOptions: ['-s', '-k', '--signal', '--kill-after'], operands: 1 },
  stdbuf: { valueOptions: ['-i', '-o', '-e'] },
  chrt: { valueOptions: [], operands: 1 },
  taskset: { valueOptions: [], operands: 1 },
  unbuffer: { valueOptions: [] },
  coproc: { valueOptions: [] },
};

/** The last path segment of a program name (`/usr/bin/sudo` is sudo). */
export function baseName(program: string): string {
  return program.slice(program.lastIndexOf('/') + 1);
}

/** Splits a sub-command's words (as written) into prefixes, wrappers and the program that runs. */
export function programWords(written: readonly string[]): ProgramWords {
  const prefixes: string[] = [];
  let at = 0;
  for (; at < written.length && isAssignment(written[at]!); at++) prefixes.push(written[at]!);
  const words: string[] = [];
  let computedProgram = false;
  for (const [index, word] of written.slice(at).entries()) {
    const expanded = expandWord(word);
    if (index === 0) computedProgram = expanded[0]?.computed ?? false;
    words.push(...expanded.map((part) => part.value));
  }
  const wrappers: string[] = [];
  let argv = words;
  for (let wrapper = WRAPPERS[baseName(argv[0] ?? '')]; wrapper && !computedProgram; wrapper = WRAPPERS[baseName(argv[0] ?? '')]) {
    const name = baseName(argv[0]!);
    if (name === 'env') argv = splitEnvStrings(argv);
    let next = 1;
    while (next < argv.length && argv[next]!.startsWith('-') && argv[next] !== '-') {
      if (argv[next] === '--') {
        next++;
        break;
      }
      next += wrapper.valueOptions.includes(argv[next]!) ? 2 : 1;
    }
    if (name === 'env') {
      for (; next < argv.length && isAssignment(argv[next]!); next++) prefixes.push(argv[next]!);
    }
    next += wrapper.operands ?? 0;
    if (next >= argv.length) break;
    wrappers.push(name);
    argv = argv.slice(next);
  }
  return { prefixes, wrappers, argv, computedProgram };
}

/** `env -S 'rm -rf x'` (or -Sstring, --split-string=string) runs the words of its string: they replace it. */
function splitEnvStrings(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let at = 0; at < argv.length; at++) {
    const arg = argv[at]!;
    const glued = /^(?:-S|--split-string=)(.+)$/s.exec(arg);
    if (arg === '-S' || arg === '--split-string') out.push(...(argv[++at] ?? '').split(/\s+/).filter(Boolean));
    else if (glued) out.push(...glued[1]!.split(/\s+/).filter(Boolean));
    else out.push(arg);
  }
  return out;
}
