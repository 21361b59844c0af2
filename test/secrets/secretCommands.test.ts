import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../main/cli/argv';
import type { Io } from '../../main/cli/commands';
import { secretCommand } from '../../main/cli/secretCommands';
import { FileSecretProvider } from '../../main/secrets/secretProvider';
import { GateError } from '../../shared/errors';
import { WAIT_MS } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

const CLI = resolve(__dirname, '../../bin/toolgate.js');
let base: string;
let home: string;
let secretsPath: string;

beforeEach(() => {
  base = makeTempFolder();
  home = join(base, 'home');
  secretsPath = join(home, 'secrets.json');
});
afterEach(() => removeTempFolder(base));

/** Runs `toolgate secret …` in this process, with `stdin` as what the person pipes in. */
async function secret(argv: string[], stdin = '') {
  let out = '';
  let err = '';
  const io: Io = { out: (text) => void (out += text), err: (text) => void (err += text), home };
  const code = await secretCommand(argv, io, async () => stdin);
  return { code, out, err };
}

async function failure(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    () => {
      throw new Error('expected a failure');
    },
    (error: Error) => error,
  );
}

describe('toolgate secret (in-process)', () => {
  it('set stores the piped value without its trailing newline, owner-only, and the gate reads it', async () => {
    const run = await secret(['set', 'GH_TOKEN'], 'ghp_value\n');
    expect(run).toMatchObject({ code: 0, err: '' });
    expect(run.out).toContain('$ENV.GH_TOKEN');
    expect(run.out).not.toContain('ghp_value');
    expect(statSync(secretsPath).mode & 0o777).toBe(0o600);
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(await new FileSecretProvider(secretsPath).get('GH_TOKEN')).toBe('ghp_value');
    expect(readdirSync(home)).toEqual(['secrets.json']);
  });

  it('only one trailing newline is trimmed; other whitespace is part of the value', async () => {
    await secret(['set', 'MULTI'], ' line one\nline two\n\n');
    await secret(['set', 'CRLF'], 'windows-value\r\n');
    const provider = new FileSecretProvider(secretsPath);
    expect(await provider.get('MULTI')).toBe(' line one\nline two\n');
    expect(await provider.get('CRLF')).toBe('windows-value');
  });

  it('set replaces a value and keeps the others; list prints names only, sorted', async () => {
    await secret(['set', 'ZED_KEY'], 'zed-value');
    await secret(['set', 'ALPHA'], 'alpha-one');
    await secret(['set', 'ALPHA'], 'alpha-two');
    const listed = await secret(['list']);
    expect(listed).toEqual({ code: 0, out: 'ALPHA\nZED_KEY\n', err: '' });
    expect(JSON.parse(readFileSync(secretsPath, 'utf8'))).toEqual({ ALPHA: 'alpha-two', ZED_KEY: 'zed-value' });
  });

  it('list marks a value stored before the 8-character minimum as too short to use, without printing it', async () => {
    await secret(['set', 'GOOD_KEY'], 'long-enough-value');
    writeFileSync(secretsPath, JSON.stringify({ OLD_PIN: 'a1b2', GOOD_KEY: 'long-enough-value' }), { mode: 0o600 });
    const listed = await secret(['list']);
    expect(listed.out).toBe('GOOD_KEY\nOLD_PIN  (too short to use: store a value of at least 8 characters)\n');
    expect(listed.out + listed.err).not.toContain('a1b2');
  });

  it('list with no secrets says so on stderr', async () => {
    expect(await secret(['list'])).toEqual({ code: 0, out: '', err: `no secrets in ${secretsPath}\n` });
  });

  it('remove deletes one secret; removing an unknown one exits 1 saying so', async () => {
    await secret(['set', 'ONE_KEY'], 'one-value');
    await secret(['set', 'TWO_KEY'], 'two-value');
    expect((await secret(['remove', 'ONE_KEY'])).code).toBe(0);
    expect((await secret(['list'])).out).toBe('TWO_KEY\n');
    expect(await secret(['remove', 'ONE_KEY'])).toMatchObject({ code: 1, err: `no secret ONE_KEY in ${secretsPath}\n` });
  });

  it('refuses a bad name, a reserved name, a short value and a value on the command line', async () => {
    const bad = await failure(secret(['set', 'gh-token'], 'value'));
    expect(bad).toBeInstanceOf(GateError);
    expect(bad.message).toContain('"gh-token" is not a secret name: use capital letters, digits and _');
    expect((await failure(secret(['set', 'TOOLGATE_HOME'], 'value'))).message).toContain("kept for the gate's own settings");
    const short = await failure(secret(['set', 'PIN'], 'abc\n'));
    expect(short.message).toContain('at least 8');
    expect(short.message).not.toContain('abc');
    const argv = await failure(secret(['set', 'GH_TOKEN', 'ghp_value']));
    expect(argv).toBeInstanceOf(UsageError);
    expect(argv.message).toContain('stdin');
    expect(existsSync(secretsPath)).toBe(false);
  });

  it.skipIf(process.platform === 'win32')('set tightens a file others could read, and says so', async () => {
    await secret(['set', 'GH_TOKEN'], 'ghp_value');
    chmodSync(secretsPath, 0o644);
    expect((await secret(['list'])).err).toContain(`chmod 600 ${secretsPath}`);
    const run = await secret(['set', 'OTHER'], 'other-value');
    expect(run.err).toContain('now owner-only');
    expect(statSync(secretsPath).mode & 0o777).toBe(0o600);
  });

  it('a malformed secrets file is reported, not overwritten', async () => {
    await secret(['set', 'GH_TOKEN'], 'ghp_value');
    writeFileSync(secretsPath, '{broken', { mode: 0o600 });
    expect((await failure(secret(['set', 'OTHER'], 'other-value'))).message).toContain(`secrets file ${secretsPath} is not valid JSON`);
    expect(readFileSync(secretsPath, 'utf8')).toBe('{broken');
  });
});

// The test run's setup builds out/ when it is missing or older than a source (test/setup/buildOut.ts).
describe('toolgate secret (built CLI)', () => {
  function toolgate(args: string[], input = '') {
    const run = spawnSync(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH ?? '', TOOLGATE_HOME: home },
      input,
      encoding: 'utf8',
      timeout: WAIT_MS,
    });
    return { code: run.status, stdout: run.stdout, stderr: run.stderr };
  }

  it('set from a pipe, list, remove, and clear errors', () => {
    expect(toolgate(['secret', 'set', 'GH_TOKEN'], 'ghp_piped_value\n')).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(readFileSync(secretsPath, 'utf8'))).toEqual({ GH_TOKEN: 'ghp_piped_value' });
    const listed = toolgate(['secret', 'list']);
    expect(listed).toMatchObject({ code: 0, stdout: 'GH_TOKEN\n' });
    expect(listed.stdout + listed.stderr).not.toContain('ghp_piped_value');
    expect(toolgate(['secret', 'remove', 'GH_TOKEN'])).toMatchObject({ code: 0 });
    expect(toolgate(['secret', 'set', 'bad-name'], 'value')).toMatchObject({ code: 2, stderr: expect.stringContaining('is not a secret name') });
    expect(toolgate(['secret', 'frobnicate'])).toMatchObject({ code: 2, stderr: expect.stringContaining('unknown subcommand "frobnicate" (it takes `set`, `list`, `remove`') });
    expect(toolgate(['--help']).stdout).toContain('secret set NAME');
  });
});
