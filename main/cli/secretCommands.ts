import { createInterface } from 'node:readline';
import { GateError } from '../../shared/errors';
import { MIN_SECRET_LENGTH } from '../secrets/placeholders';
import { formatDestination, parseDestination } from '../secrets/secretDestinations';
import { checkSecretName, readSecretsFile, storedDestinations, storedValue, writeSecretsFile } from '../secrets/secretsFile';
import { statePaths } from '../state/paths';
import { UsageError } from './argv';
import { parseCommandLine } from './commandSpec';
import { commandSpec } from './commandSpecs';
import type { Io } from './commands';
import { countOf } from '../../shared/plural';

/** Reads a secret's value: one line from a terminal (after a prompt on stderr), else all of stdin. */
export async function readSecretFromStdin(name: string): Promise<string> {
  if (process.stdin.isTTY) {
    process.stderr.write(`value for ${name} (then Enter): `);
    const lines = createInterface({ input: process.stdin, terminal: false });
    try {
      for await (const line of lines) return line;
      return '';
    } finally {
      lines.close();
    }
  }
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** The value as typed or piped, without the one newline `echo` or Enter adds. */
function withoutTrailingNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}

/** The `--for` values as the file keeps them (canonical, unique); each malformed one is EVALIDATION saying why. */
function destinationsOf(values: readonly string[]): string[] {
  return [...new Set(values.map((value) => formatDestination(parseDestination(value))))];
}

/** What `secret set` says a secret may reach. */
function reachOf(name: string, destinations: readonly string[] | undefined): string {
  if (destinations) return `only ${destinations.join(', ')}`;
  return (
    `any tool that takes secrets, a person asked each time; ` +
    `name where it may go with --for (e.g. \`toolgate secret set ${name} --for http_fetch:api.github.com\`) and every other destination is refused unasked`
  );
}

/**
 * `toolgate secret set NAME [--for DEST …] | list | remove NAME`: manages the secrets file that
 * `$ENV.NAME` in tool arguments is resolved from. `set` without --for keeps the destinations a
 * stored secret of that name had (remove it first to store it without any). Values come only from stdin (never argv, which
 * shell history keeps) and are never printed. `readValue` is replaceable so tests can run the
 * command in-process.
 */
export async function secretCommand(argv: string[], io: Io, readValue: (name: string) => Promise<string> = readSecretFromStdin): Promise<number> {
  const args = parseCommandLine(commandSpec('secret'), argv, 'secret');
  const [sub, name, ...extra] = args.positionals;
  const path = statePaths(io.home).secrets;
  const forValues = args.flags.get('for') ?? [];
  if (forValues.length > 0 && sub !== 'set') throw new UsageError(`--for goes with \`secret set NAME\`: it says where the stored secret may go`);
  // Checked before the value is read: a typo in --for costs no one a second paste of the value.
  const destinations = forValues.length > 0 ? destinationsOf(forValues) : undefined;
  if (sub === 'list') {
    if (name !== undefined) throw new UsageError('secret list takes no arguments');
    const { secrets, openToOthers } = readSecretsFile(path);
    if (openToOthers) io.err(`warning: ${path} is open to other users, and the gate will refuse it: run \`chmod 600 ${path}\`\n`);
    const names = Object.keys(secrets).sort();
    if (names.length === 0) io.err(`no secrets in ${path}\n`);
    for (const secretName of names) {
      const secret = secrets[secretName]!;
      // Stored before the minimum was raised: never resolved, and never looked for in outputs.
      const short = storedValue(secret).length < MIN_SECRET_LENGTH;
      const bound = storedDestinations(secret)?.map(formatDestination);
      const notes = [...(short ? [`too short to use: store a value of at least ${MIN_SECRET_LENGTH} characters`] : []), ...(bound ? [`for ${bound.join(', ')}`] : [])];
      io.out(notes.length > 0 ? `${secretName}  (${notes.join('; ')})\n` : `${secretName}\n`);
    }
    return 0;
  }
  if (sub !== 'set' && sub !== 'remove') throw new UsageError('secret takes `set NAME`, `list` or `remove NAME`');
  if (name === undefined) throw new UsageError(`secret ${sub} needs a name: toolgate secret ${sub} NAME`);
  if (extra.length > 0) {
    throw new UsageError(sub === 'set' ? 'secret set reads the value from stdin, not the command line: echo "$VALUE" | toolgate secret set NAME' : 'secret remove takes one name');
  }
  checkSecretName(name);
  const { secrets, openToOthers } = readSecretsFile(path);
  let destinationsSaid: string[] | undefined;
  if (sub === 'remove') {
    if (!Object.hasOwn(secrets, name)) {
      io.err(`no secret ${name} in ${path}\n`);
      return 1;
    }
    delete secrets[name];
  } else {
    const value = withoutTrailingNewline(await readValue(name));
    if (value.length < MIN_SECRET_LENGTH) {
      throw new GateError('EVALIDATION', `the value for ${name} has ${countOf(value.length, 'character')}; a secret needs at least ${MIN_SECRET_LENGTH}`);
    }
    // A new value without --for keeps the destinations the old one had: rotating a token never widens where it may go.
    const kept = destinations ?? (Object.hasOwn(secrets, name) ? storedDestinations(secrets[name]!)?.map(formatDestination) : undefined);
    secrets[name] = kept ? { value, for: kept } : value;
    destinationsSaid = kept;
  }
  writeSecretsFile(path, secrets);
  if (openToOthers) io.err(`warning: ${path} was open to other users; it is now owner-only (0600), so consider rotating its secrets\n`);
  io.out(sub === 'set' ? `saved ${name} in ${path}; tool arguments can use it as $ENV.${name}, and it may reach ${reachOf(name, destinationsSaid)}\n` : `removed ${name} from ${path}\n`);
  return 0;
}
