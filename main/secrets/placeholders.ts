/**
 * Secret placeholders in tool arguments.
 *
 * `$ENV.NAME` (NAME matching `[A-Z_][A-Z0-9_]*`) anywhere inside a string value of the arguments,
 * at any depth, stands for the secret NAME and is replaced by its value just before the tool runs.
 * Object keys are left untouched: a key names a field, it does not carry data. `$$ENV.NAME` is the
 * escape for the literal text `$ENV.NAME` (one `$` is dropped, nothing is looked up).
 */
import { GateError } from '../../shared/errors';
import { forEachString, mapStrings } from './jsonStrings';
import type { SecretProvider } from './secretProvider';
import { RESERVED_PREFIX } from './secretsFile';

/** A placeholder or its escape: group 1 is the extra `$` of an escape, group 2 the name. */
const PLACEHOLDER = /\$(\$?)ENV\.([A-Z_][A-Z0-9_]*)/g;

/**
 * Shorter values are refused (to store, to list at start, to resolve): every output is redacted of
 * every secret and its encodings, and a short value would blank out ordinary text everywhere. Real
 * tokens and keys are far longer; 8 is the shortest password most services accept.
 */
export const MIN_SECRET_LENGTH = 8;

/** A secret a call's arguments named, with the value that replaced it (for building the Redactor). */
export interface ResolvedSecret {
  name: string;
  value: string;
}

/** The placeholder text a secret's name is written as. */
export function placeholderFor(name: string): string {
  return `$ENV.${name}`;
}

/** The names of the secrets `input` refers to (escapes excluded), sorted and unique. */
export function placeholdersIn(input: unknown): string[] {
  const names = new Set<string>();
  forEachString(input, (text) => {
    for (const [, escape, name] of text.matchAll(PLACEHOLDER)) if (!escape) names.add(name!);
  });
  return [...names].sort();
}

function listed(names: readonly string[]): string {
  const placeholders = names.map(placeholderFor);
  return placeholders.length === 1 ? placeholders[0]! : `${placeholders.slice(0, -1).join(', ')} and ${placeholders.at(-1)}`;
}

function undefinedError(names: string[], provider: SecretProvider): GateError {
  const reserved = names.filter((name) => name.startsWith(RESERVED_PREFIX));
  if (reserved.length > 0) {
    return new GateError('EVALIDATION', `${listed(reserved)}: names starting with ${RESERVED_PREFIX} are the gate's own settings and are never passed to tools`, {
      placeholders: reserved,
    });
  }
  const name = names.length === 1 ? names[0]! : 'NAME';
  return new GateError(
    'EVALIDATION',
    `${listed(names)} ${names.length === 1 ? 'is' : 'are'} not defined (looked in ${provider.label}): ` +
      `store ${names.length === 1 ? 'it' : 'each'} with \`toolgate secret set ${name}\`, or export ${name} and start the gate with \`toolgate serve --secret-env ${name}\` (other environment variables are never used)`,
    { placeholders: names },
  );
}

/**
 * A copy of `input` with every `$ENV.NAME` replaced by the secret's value and every `$$ENV.NAME`
 * by the literal `$ENV.NAME`, plus the secrets used (for redacting the output). `input` is not
 * changed. An undefined name, or a value shorter than MIN_SECRET_LENGTH, is an EVALIDATION error
 * whose message names the placeholder and never contains a value. A value is inserted as is: a
 * placeholder inside a secret's value is not expanded again.
 */
export async function resolvePlaceholders(input: unknown, provider: SecretProvider): Promise<{ input: unknown; secrets: ResolvedSecret[] }> {
  const names = placeholdersIn(input);
  const values = await Promise.all(names.map((name) => provider.get(name)));
  const missing = names.filter((_, index) => values[index] === undefined);
  if (missing.length > 0) throw undefinedError(missing, provider);
  const secrets = names.map((name, index) => ({ name, value: values[index]! }));
  const short = secrets.filter((secret) => secret.value.length < MIN_SECRET_LENGTH);
  if (short.length > 0) {
    throw new GateError(
      'EVALIDATION',
      `${listed(short.map((secret) => secret.name))}: a secret needs at least ${MIN_SECRET_LENGTH} characters, ` +
        `or hiding it would blank out ordinary text in every output; store a longer value (\`toolgate secret set NAME\`)`,
      { placeholders: short.map((secret) => secret.name) },
    );
  }
  const byName = new Map(secrets.map((secret) => [secret.name, secret.value]));
  const resolved = mapStrings(input, (text) =>
    text.includes('$ENV.') ? text.replace(PLACEHOLDER, (_, escape: string, name: string) => (escape ? placeholderFor(name) : byName.get(name)!)) : text,
  );
  return { input: resolved, secrets };
}
