import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { ChainSecretProvider, EnvironmentSecretProvider, FileSecretProvider, type SecretProvider } from '../../main/secrets/secretProvider';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { gateErrorOf } from '../fixtures/gateErrors';

let home: string;
let path: string;

beforeEach(() => {
  home = makeTempFolder();
  path = join(home, 'secrets.json');
});
afterEach(() => removeTempFolder(home));

function writeSecrets(text: string, mode = 0o600): void {
  writeFileSync(path, text, { mode });
  chmodSync(path, mode);
}

function rejection(promise: Promise<unknown>): Promise<GateError> {
  return gateErrorOf(() => promise);
}

describe('FileSecretProvider', () => {
  it('serves the values of an owner-only (0600) file', async () => {
    writeSecrets('{"GH_TOKEN": "ghp_value", "OTHER": "other-value"}');
    const provider = new FileSecretProvider(path);
    expect(await provider.get('GH_TOKEN')).toBe('ghp_value');
    expect(await provider.get('NOPE')).toBeUndefined();
    expect(await provider.get('CONSTRUCTOR')).toBeUndefined();
    expect(provider.label).toBe(`secrets file ${path}`);
  });

  it.skipIf(process.platform === 'win32')('refuses a file others can read (0644) with EPERMISSION and the chmod that fixes it', async () => {
    writeSecrets('{"GH_TOKEN": "ghp_value"}', 0o644);
    const error = await rejection(new FileSecretProvider(path).get('GH_TOKEN'));
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain(`chmod 600 ${path}`);
    expect(error.message).toContain('0644');
    expect(error.message).not.toContain('ghp_value');
  });

  it('a missing file is simply empty', async () => {
    expect(await new FileSecretProvider(path).get('GH_TOKEN')).toBeUndefined();
  });

  it('malformed JSON is EVALIDATION naming the file, without quoting its contents', async () => {
    writeSecrets('{"GH_TOKEN": ghp_unquoted_value}');
    const error = await rejection(new FileSecretProvider(path).get('GH_TOKEN'));
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain(`secrets file ${path} is not valid JSON`);
    expect(error.message).not.toContain('ghp_unquoted_value');
  });

  it('a bad name or a non-string value is EVALIDATION saying which entry', async () => {
    writeSecrets('{"gh-token": "value"}');
    expect((await rejection(new FileSecretProvider(path).get('X'))).message).toContain('"gh-token" is not a secret name');
    writeSecrets('{"PORT": 8080}');
    expect((await rejection(new FileSecretProvider(path).get('X'))).message).toContain('the value of PORT must be a string');
    writeSecrets('["GH_TOKEN"]');
    expect((await rejection(new FileSecretProvider(path).get('X'))).message).toContain('one JSON object');
  });

  it('a value with a lone surrogate escape is EVALIDATION naming the secret and the command that sets it again, plain or bound', async () => {
    for (const text of ['{"GH_TOKEN": "\\udc00abcdefgh"}', '{"GH_TOKEN": {"value": "abcdefgh\\ud800", "for": ["http_fetch:api.github.com"]}}']) {
      writeSecrets(text);
      const error = await rejection(new FileSecretProvider(path).get('GH_TOKEN'));
      expect(error.code).toBe('EVALIDATION');
      expect(error.message).toContain('the value of GH_TOKEN holds a lone surrogate');
      expect(error.message).toContain('toolgate secret set GH_TOKEN');
      expect(error.message).not.toContain('abcdefgh');
    }
  });

  it('picks up a change after the file is rewritten, in place or by rename', async () => {
    writeSecrets('{"GH_TOKEN": "first-value"}');
    const provider = new FileSecretProvider(path);
    expect(await provider.get('GH_TOKEN')).toBe('first-value');
    writeSecrets('{"GH_TOKEN": "second-value-longer"}');
    expect(await provider.get('GH_TOKEN')).toBe('second-value-longer');
    writeFileSync(`${path}.tmp`, '{"GH_TOKEN": "third-value-renamed"}', { mode: 0o600 });
    renameSync(`${path}.tmp`, path);
    expect(await provider.get('GH_TOKEN')).toBe('third-value-renamed');
  });
});

describe('FileSecretProvider for redaction', () => {
  it('redacts a secret added to the file once the recheck interval has passed, without looking at the file for every redaction', () => {
    writeSecrets('{"GH_TOKEN": "first-value"}');
    let now = 0;
    const provider = new FileSecretProvider(path, { recheckMs: 100, now: () => now });
    expect(provider.known()).toEqual([{ name: 'GH_TOKEN', value: 'first-value' }]);
    writeSecrets('{"GH_TOKEN": "first-value", "NEW_KEY": "new-secret-value"}');
    now = 50;
    expect(provider.known().map(({ name }) => name)).toEqual(['GH_TOKEN']);
    now = 100;
    expect(provider.known()).toEqual([
      { name: 'GH_TOKEN', value: 'first-value' },
      { name: 'NEW_KEY', value: 'new-secret-value' },
    ]);
  });

  it('resolves a secret stored a moment ago at once, and redaction knows it from then on', async () => {
    writeSecrets('{"GH_TOKEN": "first-value"}');
    const now = 0;
    const provider = new FileSecretProvider(path, { recheckMs: 100, now: () => now });
    expect(provider.known()).toHaveLength(1);
    writeSecrets('{"GH_TOKEN": "first-value", "NEW_KEY": "new-secret-value"}');
    expect(await provider.get('NEW_KEY')).toBe('new-secret-value');
    expect(provider.known().map(({ name }) => name)).toEqual(['GH_TOKEN', 'NEW_KEY']);
  });

  it('keeps redacting the last good contents of a file broken later, and a deleted file stops being redacted', () => {
    writeSecrets('{"GH_TOKEN": "first-value"}');
    let now = 0;
    const provider = new FileSecretProvider(path, { recheckMs: 100, now: () => now });
    expect(provider.known()).toHaveLength(1);
    writeSecrets('{"GH_TOKEN": broken');
    now = 200;
    expect(provider.known()).toEqual([{ name: 'GH_TOKEN', value: 'first-value' }]);
    rmSync(path);
    now = 400;
    expect(provider.known()).toEqual([]);
  });
});

describe('EnvironmentSecretProvider', () => {
  it("serves the gate's environment but never TOOLGATE_* settings", async () => {
    const provider = new EnvironmentSecretProvider({ GH_TOKEN: 'env-token', TOOLGATE_HOME: '/secret/home' });
    expect(await provider.get('GH_TOKEN')).toBe('env-token');
    expect(await provider.get('TOOLGATE_HOME')).toBeUndefined();
    expect(await provider.get('MISSING')).toBeUndefined();
    expect(provider.label).toBe('environment (--secret-env)');
  });
});

describe('ChainSecretProvider', () => {
  it('the first provider that has the name wins, and its label lists them in order', async () => {
    writeSecrets('{"GH_TOKEN": "from-file"}');
    const chain: SecretProvider = new ChainSecretProvider([new FileSecretProvider(path), new EnvironmentSecretProvider({ GH_TOKEN: 'from-env', ONLY_ENV: 'env-only' })]);
    expect(await chain.get('GH_TOKEN')).toBe('from-file');
    expect(await chain.get('ONLY_ENV')).toBe('env-only');
    expect(await chain.get('NEITHER')).toBeUndefined();
    expect(chain.label).toBe(`secrets file ${path}, then environment (--secret-env)`);
  });
});

describe('EnvironmentSecretProvider with the names listed at start', () => {
  const env = { GH_TOKEN: 'ghp-env-token-1', HOME: '/home/me', AWS_SECRET_ACCESS_KEY: 'aws-secret-value' };

  it('serves only the listed names, never another variable of the environment', async () => {
    const provider = new EnvironmentSecretProvider(env, ['GH_TOKEN']);
    expect(await provider.get('GH_TOKEN')).toBe('ghp-env-token-1');
    expect(await provider.get('HOME')).toBeUndefined();
    expect(await provider.get('AWS_SECRET_ACCESS_KEY')).toBeUndefined();
    expect(provider.known()).toEqual([{ name: 'GH_TOKEN', value: 'ghp-env-token-1' }]);
    expect(new EnvironmentSecretProvider(env, []).known()).toEqual([]);
  });

  it('refuses to start with a listed name that is unset, too short, reserved or malformed, never printing a value', () => {
    expect(() => new EnvironmentSecretProvider(env, ['NOT_SET'])).toThrow(/--secret-env NOT_SET: NOT_SET is not set/);
    expect(() => new EnvironmentSecretProvider({ PIN: '1234' }, ['PIN'])).toThrow(/--secret-env PIN: its value has 4 characters; a secret needs at least 8/);
    expect(() => new EnvironmentSecretProvider({ TOOLGATE_HOME: '/x/y/z/w/v' }, ['TOOLGATE_HOME'])).toThrow(/TOOLGATE_/);
    expect(() => new EnvironmentSecretProvider(env, ['lower'])).toThrow(/is not a secret name/);
  });
});

describe('FileSecretProvider.known', () => {
  it('lists the stored secrets, and still does for a file open to others (which get() refuses)', async () => {
    writeSecrets('{"GH_TOKEN": "from-file-value"}');
    const provider = new FileSecretProvider(path);
    expect(provider.known()).toEqual([{ name: 'GH_TOKEN', value: 'from-file-value' }]);
    chmodSync(path, 0o644);
    await expect(provider.get('GH_TOKEN')).rejects.toThrow(/open to other users/);
    expect(provider.known()).toEqual([{ name: 'GH_TOKEN', value: 'from-file-value' }]);
  });
});
