import { readFileSync, statSync } from 'node:fs';
import { GateError } from '../../shared/errors';
import { countOf } from '../../shared/plural';
import { MIN_SECRET_LENGTH, type ResolvedSecret } from './placeholders';
import type { SecretDestination } from './secretDestinations';
import {
  RESERVED_PREFIX,
  SECRET_NAME_PATTERN,
  checkSecretName,
  isOpenToOthers,
  openFileError,
  parseSecretsFile,
  storedDestinations,
  storedValue,
  type SecretsFile,
} from './secretsFile';

/** A provider's answer when it has no secrets: one array, the same each time. */
export const NO_SECRETS: readonly ResolvedSecret[] = Object.freeze([]);

/** Where secret values come from (the Vault-Warden protocol's provider). */
export interface SecretProvider {
  /** The secret's value, or undefined when this provider does not have it. */
  get(name: string): Promise<string | undefined>;
  /**
   * Every secret this provider could serve, for redacting them from everything the gate shows or
   * keeps. Synchronous, because the audit log's append path (the last line of defence) is. A
   * frozen array, the same one for as long as the secrets are the same, lets redaction (asked a few
   * times for every call) keep its redactor without comparing each secret again.
   */
  known(): readonly ResolvedSecret[];
  /** Where it looks, for error messages ("environment", "secrets file /home/me/.toolgate/secrets.json"). */
  readonly label: string;
  /**
   * Where the secret may go (`toolgate secret set NAME --for DEST`), or undefined when it was given
   * no destinations (or this provider cannot bind any: the environment's are never bound).
   */
  destinations?(name: string): Promise<readonly SecretDestination[] | undefined>;
}

/**
 * Serves the environment variables named when the gate started (`toolgate serve --secret-env NAME`),
 * and no others: an agent cannot ask for an arbitrary variable of the gate's environment (HOME,
 * AWS_SECRET_ACCESS_KEY, …). Each listed name must be a valid secret name (never `TOOLGATE_*`, the
 * gate's own settings), be set, and be at least MIN_SECRET_LENGTH long, or the gate refuses to start.
 * Without a list, every variable of `env` is served: for a hand-made map in tests, never process.env.
 */
export class EnvironmentSecretProvider implements SecretProvider {
  readonly label = 'environment (--secret-env)';
  private readonly secrets: ReadonlyMap<string, string>;
  private readonly all: readonly ResolvedSecret[];

  constructor(env: Readonly<Record<string, string | undefined>>, allowed?: readonly string[]) {
    const names = allowed ?? Object.keys(env).filter((name) => SECRET_NAME_PATTERN.test(name) && !name.startsWith(RESERVED_PREFIX));
    const secrets = new Map<string, string>();
    for (const name of names) {
      checkSecretName(name);
      const value = Object.hasOwn(env, name) ? env[name] : undefined;
      if (value === undefined) {
        throw new GateError('EVALIDATION', `--secret-env ${name}: ${name} is not set in the gate's environment; export it before starting the gate, or store it with \`toolgate secret set ${name}\``);
      }
      if (allowed && value.length < MIN_SECRET_LENGTH) {
        throw new GateError('EVALIDATION', `--secret-env ${name}: its value has ${countOf(value.length, 'character')}; a secret needs at least ${MIN_SECRET_LENGTH}`);
      }
      secrets.set(name, value);
    }
    this.secrets = secrets;
    this.all = Object.freeze([...secrets].map(([name, value]) => ({ name, value })));
  }

  async get(name: string): Promise<string | undefined> {
    return this.secrets.get(name);
  }

  known(): readonly ResolvedSecret[] {
    return this.all;
  }
}

/**
 * How long the secrets file's last look is trusted by redaction. Every result, log line, console
 * event and audit record is redacted, and a stat of the file for each cost an auto-allowed call
 * about 7% of the executor's time; a person storing a secret takes far longer than this to see it
 * used. A placeholder is always resolved from a fresh look, which also renews redaction's.
 */
const SECRETS_RECHECK_MS = 100;

/**
 * Serves the secrets file (`{"NAME": "value"}`, mode 0600). A missing file is empty; a file others
 * can read is refused with EPERMISSION; a broken one with EVALIDATION naming it. The file is read
 * again whenever it changes, so `toolgate secret set` takes effect without a restart: at once for
 * placeholders, within SECRETS_RECHECK_MS for redaction.
 */
export class FileSecretProvider implements SecretProvider {
  readonly label: string;
  private cached: { version: string; secrets: SecretsFile; known: readonly ResolvedSecret[] } | undefined;
  /** When redaction last looked at the file (`now()`), or undefined before the first look. */
  private lookedAt: number | undefined;
  private readonly recheckMs: number;
  private readonly now: () => number;

  constructor(
    private readonly path: string,
    options: { recheckMs?: number; now?: () => number } = {},
  ) {
    this.label = `secrets file ${path}`;
    this.recheckMs = options.recheckMs ?? SECRETS_RECHECK_MS;
    this.now = options.now ?? performance.now.bind(performance);
  }

  async get(name: string): Promise<string | undefined> {
    const secrets = this.load(true);
    return Object.hasOwn(secrets, name) ? storedValue(secrets[name]!) : undefined;
  }

  async destinations(name: string): Promise<readonly SecretDestination[] | undefined> {
    const secrets = this.load(true);
    return Object.hasOwn(secrets, name) ? storedDestinations(secrets[name]!) : undefined;
  }

  /** Redaction never fails: a file open to others is still redacted, a broken one by its last good contents. */
  known(): readonly ResolvedSecret[] {
    if (this.lookedAt !== undefined && this.now() - this.lookedAt < this.recheckMs) return this.cached?.known ?? NO_SECRETS;
    try {
      this.load(false);
    } catch {
      // The last good contents stand; the next look tries again.
      this.lookedAt = this.now();
    }
    return this.cached?.known ?? NO_SECRETS;
  }

  private load(refuseOpenFile: boolean): SecretsFile {
    let info;
    try {
      info = statSync(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.cached = undefined;
      this.lookedAt = this.now();
      return {};
    }
    if (refuseOpenFile && isOpenToOthers(info.mode)) throw openFileError(this.path, info.mode);
    // The inode changes on an atomic rename, the size or mtime on an edit in place.
    const version = `${info.ino}:${info.size}:${info.mtimeMs}`;
    if (this.cached?.version !== version) {
      const secrets = parseSecretsFile(readFileSync(this.path, 'utf8'), this.path);
      this.cached = { version, secrets, known: Object.freeze(Object.entries(secrets).map(([name, secret]) => ({ name, value: storedValue(secret) }))) };
    }
    this.lookedAt = this.now();
    return this.cached.secrets;
  }
}

/** Asks each provider in turn; the first that has the name wins. */
export class ChainSecretProvider implements SecretProvider {
  readonly label: string;
  /** The last answer of each provider, and their secrets joined: kept while every provider answers the same. */
  private last: { parts: ReadonlyArray<readonly ResolvedSecret[]>; all: readonly ResolvedSecret[] } | undefined;

  constructor(private readonly providers: readonly SecretProvider[]) {
    this.label = providers.map((provider) => provider.label).join(', then ');
  }

  async get(name: string): Promise<string | undefined> {
    for (const provider of this.providers) {
      const value = await provider.get(name);
      if (value !== undefined) return value;
    }
    return undefined;
  }

  /** The destinations the provider that serves the name gives it. */
  async destinations(name: string): Promise<readonly SecretDestination[] | undefined> {
    for (const provider of this.providers) {
      if ((await provider.get(name)) !== undefined) return provider.destinations?.(name);
    }
    return undefined;
  }

  /** Every provider's secrets: a value shadowed by an earlier provider is still one to hide. */
  known(): readonly ResolvedSecret[] {
    const parts = this.providers.map((provider) => provider.known());
    const { last } = this;
    if (last && parts.every((part, index) => part === last.parts[index])) return last.all;
    const all = Object.freeze(parts.flat());
    this.last = { parts, all };
    return all;
  }
}
