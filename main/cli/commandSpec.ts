import { UsageError, onlyFlags, parseArgs, type ParsedArgs } from './argv';

/** One option of a command: `--name VALUE` (or a bare `--name` when it takes no value). */
export interface OptionSpec {
  /** The name, without the dashes. */
  name: string;
  /** What its value is called in the help (`N`, `DIR`); absent for a flag that takes no value. */
  value?: string;
  /** Whether it may be given more than once (every value is kept). */
  repeatable?: boolean;
  /** One line on what it does, with its default. */
  description: string;
}

/** A command or a subcommand: its words, what it does and every option it takes. */
export interface CommandSpec {
  /** The word that names it (`serve`, `verify`). */
  name: string;
  /** Its positional arguments as the help shows them, e.g. `TOOL [JSON]`. */
  args?: string;
  /** One line on what it does. */
  summary: string;
  /** More lines for its own --help: exit codes, examples. */
  details?: string;
  /** The options it takes (its subcommands' options are their own). */
  options?: readonly OptionSpec[];
  /** Subcommands, e.g. `audit verify`. */
  subcommands?: readonly CommandSpec[];
  /** Whether a command with subcommands also runs without one (`tools --format openai`). */
  runsBare?: boolean;
}

/** Whether a command line asks for help: `--help` or `-h` before any `--`. */
export function wantsHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** The subcommand a command line names, if the command has subcommands and the line names one. */
export function subcommandOf(spec: CommandSpec, argv: readonly string[]): CommandSpec | undefined {
  const word = argv.find((arg) => !arg.startsWith('-'));
  return spec.subcommands?.find((sub) => sub.name === word);
}

/**
 * Parses a command's arguments by its spec: options that take no value are flags, and an option the
 * spec does not list is refused (naming `--help`). An option that is not repeatable and is given
 * twice takes its last value, so a script can add to a command line that already has a default.
 */
export function parseCommandLine(spec: CommandSpec, argv: readonly string[], path: string): ParsedArgs {
  const options = spec.options ?? [];
  let args: ParsedArgs;
  try {
    args = parseArgs(
      argv,
      options.filter((option) => option.value === undefined).map((option) => option.name),
    );
    onlyFlags(
      args,
      options.map((option) => option.name),
    );
  } catch (error) {
    if (error instanceof UsageError) throw new UsageError(`${error.message} (see \`toolgate ${path} --help\`)`);
    throw error;
  }
  return args;
}

/** `--name VALUE`, as the help lists it. */
function optionLabel(option: OptionSpec): string {
  return `--${option.name}${option.value ? ` ${option.value}` : ''}${option.repeatable ? ' …' : ''}`;
}

/** Two columns: labels padded to the longest, then the descriptions. */
function columns(rows: readonly [string, string][]): string {
  const width = Math.min(34, Math.max(...rows.map(([label]) => label.length)));
  return rows
    .map(([label, text]) => (label.length > width ? `  ${label}\n  ${' '.repeat(width)}  ${text}` : `  ${label.padEnd(width)}  ${text}`))
    .join('\n');
}

/** The --help text of a command (`path` is its words after `toolgate`, e.g. `audit verify`). */
export function helpText(spec: CommandSpec, path: string): string {
  const lines = [`Usage: toolgate ${path}${spec.subcommands ? ' <subcommand>' : ''}${spec.args ? ` ${spec.args}` : ''}${spec.options?.length ? ' [options]' : ''}`, '', spec.summary];
  if (spec.subcommands) {
    lines.push('', 'Subcommands:', columns(spec.subcommands.map((sub) => [`${sub.name}${sub.args ? ` ${sub.args}` : ''}`, sub.summary])));
    lines.push('', `Run \`toolgate ${path} <subcommand> --help\` for its options.`);
  }
  lines.push('', 'Options:', columns([...(spec.options ?? []).map((option): [string, string] => [optionLabel(option), option.description]), ['--help, -h', 'show this help']]));
  if (spec.details) lines.push('', spec.details);
  return `${lines.join('\n')}\n`;
}

/** The top-level usage: every command with its one line. */
export function usageText(specs: readonly CommandSpec[]): string {
  const rows = specs.flatMap((spec): [string, string][] => {
    const own: [string, string] = [`${spec.name}${spec.args ? ` ${spec.args}` : ''}`, spec.summary];
    if (!spec.subcommands) return [own];
    const subs = spec.subcommands.map((sub): [string, string] => [`${spec.name} ${sub.name}${sub.args ? ` ${sub.args}` : ''}`, sub.summary]);
    return spec.runsBare ? [own, ...subs] : subs;
  });
  return [
    'Usage: toolgate <command> [options]',
    '',
    columns(rows),
    '',
    'Run `toolgate <command> --help` for a command\'s options. State lives in $TOOLGATE_HOME (default ~/.toolgate).',
    '',
  ].join('\n');
}
