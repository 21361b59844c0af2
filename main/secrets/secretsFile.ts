import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { isWellFormedText } from '../../shared/jsonLimits';
import { ensureHome, writePrivateFile } from '../state/stateFolder';
import { parseDestination, type SecretDestination } from './secretDestinations';

/** What a secret may be called: the NAME of `$ENV.NAME`. */
export const SECRET_NAME_PATTERN = /^[A-Z_][A-Z0-9_]*$/;

/** A secret's name, as the secrets file and `toolgate secret` accept it. */
export const SecretNameSchema = z.string().regex(SECRET_NAME_PATTERN);

/** A secret with the places it may go (`toolgate secret set NAME --for DEST`), each as `--for` writes it. */
export const BoundSecretSchema = z.object({ value: z.string(), for: z.array(z.string()).min(1) }).strict();

/**
 * The secrets file: one JSON object mapping each secret's name to its value, or to its value and
 * where it may go. A plain value is a secret without destinations (see secretDestinations.ts).
 */
export const SecretsFileSchema = z.record(SecretNameSchema, z.union([z.string(), BoundSecretSchema]));
export type SecretsFile = z.infer<typeof SecretsFileSchema>;
export type StoredSecret = SecretsFile[string];

/** A stored secret's value. */
export function storedValue(secret: StoredSecret): string {
  return typeof secret === 'string' ? secret : secret.value;
}

/** Where a stored secret may go, or undefined when it was stored without `--for`. */
export function storedDestinations(secret: StoredSecret): SecretDestination[] | undefined {
  return typeof secret === 'string' ? undefined : secret.for.map(parseDestination);
}

/** Names starting with this are the gate's own settings, never secrets a tool may ask for. */
export const RESERVED_PREFIX = 'TOOLGATE_';

/** The secrets file's contents, and whether users other than its owner can get at them. */
export interface SecretsFileContents {
  secrets: SecretsFile;
  /** Group or other has some permission on the file (always false on Windows, which has no such bits). */
  openToOthers: boolean;
}

/** Whether a file mode gives group or other any access. */
export function isOpenToOthers(mode: number): boolean {
  return process.platform !== 'win32' && (mode & 0o077) !== 0;
}

/** The refusal for a secrets file others can read, with the command that fixes it. */
export function openFileError(path: string, mode: number): GateError {
  const octal = (mode & 0o777).toString(8).padStart(4, '0');
  return new GateError('EPERMISSION', `secrets file ${path} is open to other users (mode ${octal}): run \`chmod 600 ${path}\``, { path });
}

/** Checks a secret's name; the message says what a valid one looks like. */
export function checkSecretName(name: string): void {
  if (!SECRET_NAME_PATTERN.test(name)) {
    throw new GateError('EVALIDATION', `${JSON.stringify(name)} is not a secret name: use capital letters, digits and _, not starting with a digit (like GITHUB_TOKEN)`);
  }
  if (name.startsWith(RESERVED_PREFIX)) {
    throw new GateError('EVALIDATION', `${name} starts with ${RESERVED_PREFIX}, which is kept for the gate's own settings; pick another name`);
  }
}

/**
 * Parses the secrets file's text. Messages never quote the text itself: a JSON parser's excerpt of
 * a broken file would print a secret.
 */
export function parseSecretsFile(text: string, path: string): SecretsFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    throw new GateError(
      'EVALIDATION',
      `secrets file ${path} is not valid JSON${position ? ` (at character ${position})` : ''}: it should hold one object like {"NAME": "value"}; fix it, or delete it and use \`toolgate secret set NAME\``,
      { path },
    );
  }
  const parsed = SecretsFileSchema.safeParse(json);
  if (parsed.success) {
    for (const [name, secret] of Object.entries(parsed.data)) {
      // A lone surrogate (a hand-written \udc00) has no UTF-8 form: no redactor could look for it in output.
      if (!isWellFormedText(storedValue(secret))) {
        throw new GateError(
          'EVALIDATION',
          `secrets file ${path} is malformed: the value of ${name} holds a lone surrogate escape (\\ud800–\\udfff without its pair), which is no text a tool could send; set it again with \`toolgate secret set ${name}\``,
          { path },
        );
      }
      try {
        storedDestinations(secret);
      } catch (error) {
        throw new GateError('EVALIDATION', `secrets file ${path} is malformed: ${name}'s "for": ${(error as Error).message}`, { path });
      }
    }
    return parsed.data;
  }
  const issue = parsed.error.issues[0]!;
  const key = issue.path[0];
  const why =
    key === undefined
      ? 'it should hold one JSON object like {"NAME": "value"}'
      : issue.code === 'invalid_key'
        ? `${JSON.stringify(key)} is not a secret name (capital letters, digits and _, not starting with a digit)`
        : `the value of ${String(key)} must be a string, or {"value": "…", "for": ["http_fetch:api.github.com"]}`;
  throw new GateError('EVALIDATION', `secrets file ${path} is malformed: ${why}`, { path });
}

/** Reads the secrets file without judging its mode (the CLI uses this to repair one); a missing file is empty. */
export function readSecretsFile(path: string): SecretsFileContents {
  if (!existsSync(path)) return { secrets: {}, openToOthers: false };
  const { mode } = statSync(path);
  return { secrets: parseSecretsFile(readFileSync(path, 'utf8'), path), openToOthers: isOpenToOthers(mode) };
}

/** Replaces the secrets file atomically (temp file with mode 0600, then rename), creating the state folder if needed. */
export function writeSecretsFile(path: string, secrets: SecretsFile): void {
  ensureHome(dirname(path));
  const sorted = Object.fromEntries(Object.entries(secrets).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  writePrivateFile(path, `${JSON.stringify(sorted, null, 2)}\n`);
}
