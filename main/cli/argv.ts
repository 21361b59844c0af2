/** Parsed command line: positionals and --flags (repeatable flags collect every value). */
export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string[]>;
}

/** Thrown for a command line that cannot be understood; the CLI prints it with usage and exits 2. */
export class UsageError extends Error {}

/** Splits argv into positionals and flags; `booleans` are flags that take no value. */
export function parseArgs(argv: readonly string[], booleans: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--') || arg === '--') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq >= 0 ? eq : undefined);
    let value: string;
    if (eq >= 0) value = arg.slice(eq + 1);
    else if (booleans.includes(name)) value = 'true';
    else {
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('--')) throw new UsageError(`--${name} needs a value`);
      value = next;
      i++;
    }
    flags.set(name, [...(flags.get(name) ?? []), value]);
  }
  return { positionals, flags };
}

/** The last value of a flag. */
export function flag(args: ParsedArgs, name: string): string | undefined {
  return args.flags.get(name)?.at(-1);
}

/** A flag as a whole number within bounds. */
export function intFlag(args: ParsedArgs, name: string, min: number, max: number): number | undefined {
  const value = flag(args, name);
  if (value === undefined) return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < min || number > max) {
    throw new UsageError(`--${name} takes a whole number from ${min} to ${max}, not ${JSON.stringify(value)}`);
  }
  return number;
}

/** Refuses flags the command does not know. */
export function onlyFlags(args: ParsedArgs, known: readonly string[]): void {
  for (const name of args.flags.keys()) {
    if (!known.includes(name)) throw new UsageError(`unknown option --${name}`);
  }
}
