/**
 * A hostile agent against a real gate, through the official MCP client with the agent's token:
 * it names environment variables nobody listed, sends placeholders to tools that echo, has a tool
 * hand a secret back encoded, and reads back a file a secret was written into. Secrets reach only
 * calls a person approved, and no form of one ever comes back, to the agent, the console or the audit.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { BRIDGE_EVENT_NAMES } from '../../shared/contract';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { statePaths } from '../../main/state/paths';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

const ENCODING_TOOLS = resolve(__dirname, '../fixtures/tools/secretEncodings.mjs');

/** Stored with `toolgate secret set`; a quote, a backslash, a slash and a plus, so every encoding differs from it. */
const STORED = 'tg-St0red"Val\\ue/+?&=9f3';
/** Exported and listed with --secret-env. */
const LISTED = 'tg-L1sted-env-7c2e1b';
/** Exported but not listed: the gate must never hand it out. */
const UNLISTED = 'tg-Unl1sted-env-4d9a8e';

/** Every spelling of a value a test looks for, with a name for the failure message. */
function spellings(value: string): Record<string, string> {
  const bytes = Buffer.from(value);
  return {
    raw: value,
    json: JSON.stringify(value).slice(1, -1),
    base64: bytes.toString('base64').slice(0, 20),
    base64url: bytes.toString('base64url').slice(0, 20),
    basicAuth: Buffer.from(`user:${value}`).toString('base64').slice(8, 28),
    hex: bytes.toString('hex'),
    hexUpper: bytes.toString('hex').toUpperCase(),
    url: encodeURIComponent(value),
    form: new URLSearchParams({ q: value }).toString().slice(2),
  };
}

/** The spellings of any test secret found in `text`, e.g. ["STORED base64"]. */
function leaksIn(text: string): string[] {
  const found: string[] = [];
  for (const [name, value] of Object.entries({ STORED, LISTED, UNLISTED })) {
    for (const [form, spelled] of Object.entries(spellings(value))) if (text.includes(spelled)) found.push(`${name} ${form}`);
  }
  return found;
}

let dirs: TempDirs;
let running: RunningGate;
let client: Client;
const prompts: ApprovalRequest[] = [];
const consoleEvents: unknown[] = [];
/** What the person answers to the next prompts (approve when empty). */
const answers: Array<'approve' | 'deny'> = [];

beforeAll(async () => {
  process.env.IT_LISTED_TOKEN = LISTED;
  process.env.IT_UNLISTED_TOKEN = UNLISTED;
  dirs = makeTempDirs();
  writeSecretsFile(statePaths(dirs.home).secrets, { API_TOKEN: STORED });
  running = await startGate({
    home: dirs.home,
    workspace: dirs.workspace,
    port: 0,
    approvalTimeoutMs: WAIT_MS,
    poolSize: 1,
    toolModules: [ENCODING_TOOLS],
    secretEnv: ['IT_LISTED_TOKEN'],
  });
  for (const event of BRIDGE_EVENT_NAMES) running.backend.subscribe(event, (payload) => consoleEvents.push({ event, payload }));
  running.backend.subscribe('approvalRequested', (request) => {
    prompts.push(request);
    void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: answers.shift() ?? 'approve', reason: 'test person' });
  });
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
  delete process.env.IT_LISTED_TOKEN;
  delete process.env.IT_UNLISTED_TOKEN;
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The gate still answers a plain call. */
async function expectGateServes(): Promise<void> {
  const result = await call('echo', { text: 'still here' });
  expect(result.isError).toBeFalsy();
  expect(textOf(result)).toContain('still here');
}

describe('secrets against a hostile agent (MCP client, real gate)', () => {
  it('an environment variable nobody listed is never resolved: EVALIDATION naming the placeholder and how to store it, no prompt', async () => {
    const before = prompts.length;
    const result = await call('encode_text', { text: 'key=$ENV.IT_UNLISTED_TOKEN' });
    expect(result.isError).toBe(true);
    const text = textOf(result);
    expect(text).toContain('EVALIDATION');
    expect(text).toContain('$ENV.IT_UNLISTED_TOKEN is not defined');
    expect(text).toContain('toolgate secret set IT_UNLISTED_TOKEN');
    expect(text).toContain('--secret-env IT_UNLISTED_TOKEN');
    expect(leaksIn(JSON.stringify(result))).toEqual([]);
    expect(prompts.length).toBe(before);
    // Nor a variable every process has.
    const home = await call('encode_text', { text: '$ENV.HOME' });
    expect(home.isError).toBe(true);
    expect(textOf(home)).toContain('$ENV.HOME is not defined');
    await expectGateServes();
  });

  it('a SAFE call with a stored secret waits for a person, whose prompt names the secret; denied, it never runs', async () => {
    answers.push('deny');
    const before = prompts.length;
    const denied = await call('encode_text', { text: '$ENV.API_TOKEN' });
    expect(prompts.length).toBe(before + 1);
    expect(prompts.at(-1)).toMatchObject({ tool: 'encode_text', tier: 'SAFE', rule: 'secrets→ask', secrets: ['API_TOKEN'] });
    expect(prompts.at(-1)!.arguments).toEqual({ text: '$ENV.API_TOKEN' });
    expect(denied.isError).toBe(true);
    expect(textOf(denied)).toContain('EDENIED');
    expect(textOf(denied)).toContain('a person denied it');

    const listed = await call('encode_text', { text: '$ENV.IT_LISTED_TOKEN' });
    expect(prompts.at(-1)).toMatchObject({ tool: 'encode_text', secrets: ['IT_LISTED_TOKEN'] });
    expect(listed.isError).toBeFalsy();
    expect(leaksIn(JSON.stringify(listed))).toEqual([]);
    await expectGateServes();
  });

  it('echo, calculator and hash refuse a placeholder with EVALIDATION naming the field, before any prompt', async () => {
    const before = prompts.length;
    for (const [tool, args, field] of [
      ['echo', { text: 'say $ENV.API_TOKEN' }, 'text'],
      ['calculator', { expression: '$ENV.API_TOKEN' }, 'expression'],
      ['hash', { text: '$ENV.API_TOKEN' }, 'text'],
      ['echo', { text: '$ENV.NO_SUCH_SECRET' }, 'text'],
    ] as const) {
      const result = await call(tool, args);
      expect(result.isError, tool).toBe(true);
      const text = textOf(result);
      expect(text, tool).toContain('EVALIDATION');
      expect(text, tool).toContain(`${field} holds the secret placeholder`);
      expect(text, tool).toContain(`${tool} does not take secrets`);
    }
    expect(prompts.length).toBe(before);
    await expectGateServes();
  });

  it('a tool that returns a stored secret base64-, hex- and URL-encoded returns each form redacted', async () => {
    const result = await call('encode_text', { text: 'pre $ENV.API_TOKEN post' });
    expect(result.isError).toBeFalsy();
    const data = result.structuredContent as Record<string, string>;
    for (const key of ['base64', 'base64url', 'hex', 'hexUpper', 'url', 'form', 'basicAuth', 'json']) expect(data[key], key).toContain('$ENV.API_TOKEN');
    expect(leaksIn(JSON.stringify(result))).toEqual([]);
  });

  it('an error quoting a secret inside a URL comes back redacted', async () => {
    const result = await call('fail_with_url', { text: '$ENV.API_TOKEN' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('https://api.example.com/items?token=$ENV.API_TOKEN');
    expect(leaksIn(JSON.stringify(result))).toEqual([]);
  });

  it('a file written with a secret in it, read back by read_file and search_files, shows the placeholder', async () => {
    const written = await call('write_file', { path: 'config/app.env', content: 'TOKEN=$ENV.API_TOKEN\nB64=$ENV.IT_LISTED_TOKEN\n' });
    expect(written.isError).toBeFalsy();
    // The file itself holds the values: only what comes back is redacted.
    expect(readFileSync(join(dirs.workspace, 'config/app.env'), 'utf8')).toBe(`TOKEN=${STORED}\nB64=${LISTED}\n`);

    const before = prompts.length;
    const read = await call('read_file', { path: 'config/app.env' });
    expect(read.isError).toBeFalsy();
    expect(textOf(read)).toContain('TOKEN=$ENV.API_TOKEN');
    expect(textOf(read)).toContain('B64=$ENV.IT_LISTED_TOKEN');
    const found = await call('search_files', { query: 'TOKEN=' });
    expect(found.isError).toBeFalsy();
    expect(textOf(found)).toContain('$ENV.API_TOKEN');
    // Reading needs no secret, so no person is asked; and nothing leaks either way.
    expect(prompts.length).toBe(before);
    expect(leaksIn(JSON.stringify([read, found]))).toEqual([]);
    await expectGateServes();
  });

  it('no form of any secret reached the console, the prompts, or the audit database on disk', async () => {
    expect(consoleEvents.length).toBeGreaterThan(20);
    expect(leaksIn(JSON.stringify(consoleEvents))).toEqual([]);
    expect(leaksIn(JSON.stringify(prompts))).toEqual([]);
    expect(leaksIn(JSON.stringify(await running.backend.handlers.listCalls({})))).toEqual([]);
    const audit = statePaths(dirs.home).audit;
    const bytes = [audit, `${audit}-wal`].filter((file) => existsSync(file)).map((file) => readFileSync(file).toString('latin1')).join('');
    expect(bytes.length).toBeGreaterThan(1000);
    expect(bytes).toContain('$ENV.API_TOKEN');
    expect(leaksIn(bytes)).toEqual([]);
    expect(running.gate.audit.verify().ok).toBe(true);
  });
});
