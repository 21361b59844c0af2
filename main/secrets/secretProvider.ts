import { readFile, stat } from 'node:fs/promises';
import { RESERVED_PREFIX, isOpenToOthers, openFileError, parseSecretsFile, type SecretsFile } from './secretsFile';

/** Where secret values come from (the Vault-Warden protocol's provider). */
export interface SecretProvider {
  /** The secret's value, or undefined when this provider does not have it. */
  get(name: string): Promise<string | undefined>;
  /** Where it looks, for error messages ("environment", "secrets file /home/me/.toolgate/secrets.json"). */
  readonly label: string;
}

/**
 * Serves the gate's own environment variables, except `TOOLGATE_*`: the gate's settings are never
 * secrets an agent can ask for.
 */
export class EnvironmentSecretProvider implements SecretProvider {
  readonly label = 'environment';

  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async get(name: string): Promise<string | undefined> {
    if (name.startsWith(RESERVED_PREFIX) || !Object.hasOwn(this.env, name)) return undefined;
    return this.env[name];
  }
}

/**
 * Serves the secrets file (`{"NAME": "value"}`, mode 0600). A missing file is empty; a file others
 * can read is refused with EPERMISSION; a broken one with EVALIDATION naming it. The file is read
 * again whenever it changes, so `toolgate secret set` takes effect without a restart.
 */
export class FileSecretProvider implements SecretProvider {
  readonly label: string;
  private cached: { version: string; secrets: SecretsFile } | undefined;

  constructor(private readonly path: string) {
    this.label = `secrets file ${path}`;
  }

  async get(name: string): Promise<string | undefined> {
    const secrets = await this.load();
    return Object.hasOwn(secrets, name) ? secrets[name] : undefined;
  }

  private async load(): Promise<SecretsFile> {
    let info;
    try {
      info = await stat(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      this.cached = undefined;
      return {};
    }
    if (isOpenToOthers(info.mode)) throw openFileError(this.path, info.mode);
    // The inode changes on an atomic rename, the size or mtime on an edit in place.
    const version = `${info.ino}:${info.size}:${info.mtimeMs}`;
    if (this.cached?.version !== version) {
      this.cached = { version, secrets: parseSecretsFile(await readFile(this.path, 'utf8'), this.path) };
    }
    return this.cached.secrets;
  }
}

/** Asks each provider in turn; the first that has the name wins. */
export class ChainSecretProvider implements SecretProvider {
  readonly label: string;

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
}
