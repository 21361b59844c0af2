import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Io } from '../../main/cli/commands';
import { secretCommand } from '../../main/cli/secretCommands';
import { callDestinations, checkDestinations, secretForServer } from '../../main/secrets/secretBindings';
import { formatDestination, parseDestination } from '../../main/secrets/secretDestinations';
import { FileSecretProvider } from '../../main/secrets/secretProvider';
import { readSecretsFile } from '../../main/secrets/secretsFile';
import { httpFetchTool } from '../../main/tools/httpFetch';
import { shellExecTool } from '../../main/tools/shellExec';
import { GateError } from '../../shared/errors';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let home: string;
let secretsPath: string;

beforeEach(() => {
  home = makeTempFolder();
  secretsPath = join(home, 'secrets.json');
});
afterEach(() => removeTempFolder(home));

/** Runs `toolgate secret …` in this process with `stdin` piped in. */
async function secret(argv: string[], stdin = 'tg-value-0123456789') {
  let out = '';
  let err = '';
  const io: Io = { out: (text) => void (out += text), err: (text) => void (err += text), home };
  const code = await secretCommand(argv, io, async () => stdin);
  return { code, out, err };
}

async function refusal(promise: Promise<unknown>): Promise<GateError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  if (!(error instanceof GateError)) throw new Error(`expected a GateError, got ${String(error)}`);
  return error;
}

describe('--for destinations', () => {
  it('parses the three forms, canonically', () => {
    expect(parseDestination('shell_exec')).toEqual({ kind: 'tool', tool: 'shell_exec' });
    expect(parseDestination('server:github')).toEqual({ kind: 'server', server: 'github' });
    expect(parseDestination('http_fetch:API.GitHub.com.')).toEqual({ kind: 'host', tool: 'http_fetch', host: 'api.github.com' });
    expect(parseDestination('http_fetch:127.0.0.1:8443')).toEqual({ kind: 'host', tool: 'http_fetch', host: '127.0.0.1', port: 8443 });
    expect(formatDestination(parseDestination('http_fetch:[::1]:8080'))).toBe('http_fetch:[::1]:8080');
    expect(formatDestination(parseDestination('http_fetch:bücher.example'))).toBe('http_fetch:xn--bcher-kva.example');
  });

  it('refuses a malformed --for with what is wrong and the forms that work', () => {
    const cases: Array<[string, RegExp]> = [
      ['http_fetch', /names no host/],
      ['http_fetch:https://api.github.com/repos', /holds a URL; name only its host/],
      ['http_fetch:*.github.com', /wildcard/],
      ['http_fetch:', /does not end in a host/],
      ['http_fetch:host:99999', /outside 1–65535/],
      ['server:', /does not name a server/],
      ['server:has space', /does not name a server/],
      ['github__create_issue', /--for server:github/],
      ['Shell', /is not a destination/],
      ['ftp thing:x', /neither "server" nor a tool name/],
    ];
    for (const [text, why] of cases) {
      let error: unknown;
      try {
        parseDestination(text);
      } catch (thrown) {
        error = thrown;
      }
      expect(error, text).toBeInstanceOf(GateError);
      expect((error as GateError).code).toBe('EVALIDATION');
      expect((error as GateError).message, text).toMatch(why);
      expect((error as GateError).message).toContain('http_fetch:HOST');
    }
  });

  it('a call goes to its URL host and port, its upstream server, or else its tool', () => {
    expect(callDestinations(httpFetchTool.manifest, { url: 'https://API.example.com/x?k=1' }, false)).toEqual([{ kind: 'host', tool: 'http_fetch', host: 'api.example.com', port: 443 }]);
    expect(callDestinations(httpFetchTool.manifest, { url: 'http://127.0.0.1:8080/' }, false)).toEqual([{ kind: 'host', tool: 'http_fetch', host: '127.0.0.1', port: 8080 }]);
    expect(callDestinations(shellExecTool.manifest, { command: 'true' }, false)).toEqual([{ kind: 'tool', tool: 'shell_exec' }]);
    expect(callDestinations({ ...shellExecTool.manifest, name: 'github__create_issue' }, {}, true)).toEqual([{ kind: 'server', server: 'github' }]);
  });
});

describe('toolgate secret set --for', () => {
  it('stores where the secret may go, lists it, and says what a secret without --for may reach', async () => {
    const bound = await secret(['set', 'GH_TOKEN', '--for', 'http_fetch:API.github.com', '--for', 'server:github', '--for', 'http_fetch:api.github.com']);
    expect(bound.code).toBe(0);
    expect(bound.out).toContain('only http_fetch:api.github.com, server:github');
    const open = await secret(['set', 'OPEN_TOKEN']);
    expect(open.out).toContain('any tool that takes secrets');
    expect(open.out).toContain('--for http_fetch:api.github.com');
    expect(readSecretsFile(secretsPath).secrets).toEqual({
      GH_TOKEN: { value: 'tg-value-0123456789', for: ['http_fetch:api.github.com', 'server:github'] },
      OPEN_TOKEN: 'tg-value-0123456789',
    });
    const listed = await secret(['list']);
    expect(listed.out).toBe('GH_TOKEN  (for http_fetch:api.github.com, server:github)\nOPEN_TOKEN\n');
    expect(listed.out).not.toContain('tg-value');
    const provider = new FileSecretProvider(secretsPath);
    expect(await provider.get('GH_TOKEN')).toBe('tg-value-0123456789');
    expect(await provider.destinations('OPEN_TOKEN')).toBeUndefined();
  });

  it('a new value without --for keeps the destinations the secret had; remove then set stores it without', async () => {
    await secret(['set', 'GH_TOKEN', '--for', 'server:github']);
    const rotated = await secret(['set', 'GH_TOKEN'], 'tg-rotated-0123456789');
    expect(rotated.out).toContain('only server:github');
    expect(readSecretsFile(secretsPath).secrets.GH_TOKEN).toEqual({ value: 'tg-rotated-0123456789', for: ['server:github'] });
    await secret(['set', 'GH_TOKEN', '--for', 'shell_exec']);
    expect(readSecretsFile(secretsPath).secrets.GH_TOKEN).toEqual({ value: 'tg-value-0123456789', for: ['shell_exec'] });
    await secret(['remove', 'GH_TOKEN']);
    await secret(['set', 'GH_TOKEN']);
    expect(readSecretsFile(secretsPath).secrets.GH_TOKEN).toBe('tg-value-0123456789');
  });

  it('a malformed --for is refused before the value is read, and nothing is stored', async () => {
    let read = false;
    const io: Io = { out: () => undefined, err: () => undefined, home };
    const error = await refusal(
      secretCommand(['set', 'GH_TOKEN', '--for', 'http_fetch'], io, async () => {
        read = true;
        return 'tg-value-0123456789';
      }),
    );
    expect(error.message).toContain('names no host');
    expect(read).toBe(false);
    expect(readSecretsFile(secretsPath).secrets).toEqual({});
    await expect(secret(['list', '--for', 'shell_exec'])).rejects.toThrow(/--for goes with `secret set NAME`/);
  });

  it('a hand-edited file with a malformed destination is refused, naming the secret', async () => {
    writeFileSync(secretsPath, JSON.stringify({ K: { value: 'tg-value-0123456789', for: ['http_fetch:*'] } }), { mode: 0o600 });
    const error = await refusal(new FileSecretProvider(secretsPath).get('K'));
    expect(error.message).toContain(`K's "for"`);
    expect(error.message).toContain('wildcard');
  });
});

describe('checkDestinations', () => {
  it('refuses a bound secret anywhere else with EPERMISSION naming it, where it was going and the --for that allows it', async () => {
    await secret(['set', 'GH_TOKEN', '--for', 'http_fetch:host-a']);
    await secret(['set', 'OPEN_TOKEN']);
    const provider = new FileSecretProvider(secretsPath);
    const here = [{ kind: 'host' as const, tool: 'http_fetch', host: 'host-a', port: 443 }];
    expect(await checkDestinations(['GH_TOKEN', 'OPEN_TOKEN'], here, provider)).toBeUndefined();
    const shell = await checkDestinations(['GH_TOKEN'], [{ kind: 'tool', tool: 'shell_exec' }], provider);
    expect(shell?.code).toBe('EPERMISSION');
    expect(shell?.message).toContain('$ENV.GH_TOKEN may go only to http_fetch:host-a, and this call would send it to shell_exec');
    expect(shell?.message).toContain('toolgate secret set GH_TOKEN --for http_fetch:host-a --for shell_exec');
    expect(shell?.message).not.toContain('tg-value');
    // Unbound secrets keep the rules they had.
    expect(await checkDestinations(['OPEN_TOKEN'], [{ kind: 'tool', tool: 'shell_exec' }], provider)).toBeUndefined();
    // A port named in --for holds the secret to it.
    await secret(['set', 'PORT_TOKEN', '--for', 'http_fetch:host-a:8443']);
    expect(await checkDestinations(['PORT_TOKEN'], here, provider)).toBeInstanceOf(GateError);
    expect(await checkDestinations(['PORT_TOKEN'], [{ ...here[0]!, port: 8443 }], provider)).toBeUndefined();
  });

  it("an upstream server's configuration gets a secret only when stored for that server (or without --for)", async () => {
    await secret(['set', 'GH_TOKEN', '--for', 'server:github']);
    await secret(['set', 'OPEN_TOKEN']);
    const provider = new FileSecretProvider(secretsPath);
    expect(await secretForServer(provider, 'GH_TOKEN', 'github')).toBe('tg-value-0123456789');
    expect(await secretForServer(provider, 'OPEN_TOKEN', 'evil')).toBe('tg-value-0123456789');
    const error = await refusal(secretForServer(provider, 'GH_TOKEN', 'evil'));
    expect(error.code).toBe('EPERMISSION');
    expect(error.message).toContain('would send it to server:evil');
  });
});
