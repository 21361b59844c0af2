import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import type { CallSnapshot } from '../../shared/call';
import type { Gate, GateOptions } from '../../main/gate/createGate';
import { EnvironmentSecretProvider } from '../../main/secrets/secretProvider';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditKinds, nextApproval, openGate, type Harness } from './gateHarness';
import { waitUntil } from '../fixtures/processes';

const OUTPUT_TOOLS = resolve(__dirname, '../fixtures/tools/outputs.mjs');

/** A secret with a quote and a backslash, so its JSON-escaped form differs from it. */
const API_KEY = 'k3y"Vault\\Warden-7f3a9c';
/** A run of the value that any encoding of it (raw, JSON-escaped, escaped twice) still contains. */
const CORE = 'Warden-7f3a9c';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/**
 * A gate with the output fixture tools, whose secrets come from a fake environment, and a person
 * who approves every prompt (a call that receives a secret always asks); `prompts` holds them.
 */
async function gateWithSecrets(options: Partial<GateOptions> = {}, env: Record<string, string> = { API_KEY }, approveAll = true) {
  harness = await openGate({ toolModules: [OUTPUT_TOOLS], secrets: new EnvironmentSecretProvider(env), ...options });
  const gate = harness.gate;
  if (approveAll) approveEveryPrompt(gate);
  return gate;
}

const prompts: ApprovalRequest[] = [];
afterEach(() => {
  prompts.length = 0;
});

function approveEveryPrompt(gate: Gate): void {
  gate.events.subscribe('approvalRequested', (request) => {
    prompts.push(request);
    gate.approvals.decide(request.approvalId, 'approve');
  });
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether some rendering of the secret is in `value` (as JSON text). */
function leaks(value: unknown): boolean {
  const text = JSON.stringify(value);
  return text.includes(CORE) || text.includes(API_KEY) || text.includes(JSON.stringify(API_KEY).slice(1, -1));
}

describe('executor: secrets ($ENV.NAME placeholders)', () => {
  it('a SAFE tool gets the real value once a person approved, while its result, logs, audit and Live view show only the placeholder', async () => {
    const logs: Array<{ callId: string | undefined; stream: string; line: string }> = [];
    const g = await gateWithSecrets({ onToolLog: (callId, stream, line) => logs.push({ callId, stream, line }) });
    const snapshots: CallSnapshot[] = [];
    g.events.subscribe('callUpdated', (snapshot) => snapshots.push(snapshot));

    const result = await g.executor.call({ tool: 'secret_probe', arguments: { text: 'token=$ENV.API_KEY' } });

    expect(result.ok).toBe(true);
    // The tool saw the value itself: its length and hash are those of the real text.
    expect(result.data).toMatchObject({ length: `token=${API_KEY}`.length, sha256: sha256(`token=${API_KEY}`) });
    // What it echoed comes back with the placeholder, raw and inside JSON text alike.
    expect(result.data).toMatchObject({ text: 'token=$ENV.API_KEY', json: JSON.stringify({ text: 'token=$ENV.API_KEY' }) });
    expect(leaks(result)).toBe(false);

    const records = g.audit.forCall(result.meta.callId);
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed']);
    expect(records.find((record) => record.kind === 'policy')!.payload).toMatchObject({ decision: 'ask', rule: 'secrets→ask' });
    expect(prompts).toHaveLength(1);
    expect(prompts[0]).toMatchObject({ tool: 'secret_probe', tier: 'SAFE', rule: 'secrets→ask', secrets: ['API_KEY'] });
    expect(leaks(records)).toBe(false);
    expect(records.find((record) => record.kind === 'started')!.payload).toMatchObject({ secrets: ['API_KEY'] });
    expect(records.find((record) => record.kind === 'completed')!.payload).toMatchObject({ output: { text: 'token=$ENV.API_KEY' } });

    const snapshot = g.calls.list().find((call) => call.callId === result.meta.callId)!;
    expect(snapshot).toMatchObject({ status: 'completed', arguments: { text: 'token=$ENV.API_KEY' }, data: { text: 'token=$ENV.API_KEY' } });
    expect(leaks(snapshot)).toBe(false);
    expect(snapshots.filter((update) => update.callId === result.meta.callId).length).toBeGreaterThan(2);
    expect(leaks(snapshots)).toBe(false);
    expect(leaks(await g.backend.handlers.listCalls({}))).toBe(false);

    await waitUntil(() => logs.some((log) => log.line.startsWith('out: ')) && logs.some((log) => log.line.startsWith('err: ')), 'a log line on each stream');
    expect(logs).toContainEqual({ callId: result.meta.callId, stream: 'stdout', line: 'out: token=$ENV.API_KEY' });
    expect(logs).toContainEqual({ callId: result.meta.callId, stream: 'stderr', line: 'err: token=$ENV.API_KEY' });
    expect(JSON.stringify(logs)).not.toContain(CORE);
    expect(g.audit.verify().ok).toBe(true);
  });

  it('a log line the tool leaves open when it returns is not shown with the value once the process writes again', async () => {
    const logs: Array<{ callId: string | undefined; stream: string; line: string }> = [];
    const g = await gateWithSecrets({ onToolLog: (callId, stream, line) => logs.push({ callId, stream, line }) });
    const first = await g.executor.call({ tool: 'secret_probe', arguments: { text: 'token=$ENV.API_KEY', newline: false } });
    expect(first.ok).toBe(true);
    // The same (only) tool process serves the next call, which ends the line the first one left open.
    const second = await g.executor.call({ tool: 'secret_probe', arguments: { text: 'plain' } });
    expect(second.ok).toBe(true);
    await waitUntil(() => logs.filter((log) => log.stream === 'stdout').length > 0 && logs.filter((log) => log.stream === 'stderr').length > 0, 'a log line on each stream');
    expect(JSON.stringify(logs)).not.toContain(CORE);
  });

  it('an error message that quotes the value shows the placeholder, in the result, the audit and the Live view', async () => {
    const g = await gateWithSecrets();
    const result = await g.executor.call({ tool: 'fail_with', arguments: { text: 'token=$ENV.API_KEY' } });
    expect(result.ok).toBe(false);
    expect(result.error).toMatchObject({ code: 'ERUNTIME', message: 'could not use token=$ENV.API_KEY' });
    expect(leaks(result)).toBe(false);
    expect(auditKinds(g, result.meta.callId).at(-1)).toBe('failed');
    expect(leaks(g.audit.forCall(result.meta.callId))).toBe(false);
    expect(leaks(g.calls.list().find((call) => call.callId === result.meta.callId))).toBe(false);
  });

  it('an ELEVATED dry run shows the person the placeholder; once approved the file holds the value, the audit never does', async () => {
    const g = await gateWithSecrets({}, { API_KEY }, false);
    const prompt = nextApproval(g);
    const call = g.executor.call({ tool: 'write_file', arguments: { path: 'config.yml', content: 'key: $ENV.API_KEY' } });
    const request = await prompt;

    expect(request.arguments).toEqual({ path: 'config.yml', content: 'key: $ENV.API_KEY' });
    expect(request.secrets).toEqual(['API_KEY']);
    expect(request.preview).toMatchObject({ kind: 'diff', path: 'config.yml', after: 'key: $ENV.API_KEY' });
    expect(request.preview.kind === 'diff' && request.preview.unified).toContain('+key: $ENV.API_KEY');
    expect(leaks(request)).toBe(false);
    expect(leaks(await g.backend.handlers.listApprovals({}))).toBe(false);
    expect(existsSync(join(harness!.workspace, 'config.yml'))).toBe(false);

    g.approvals.decide(request.approvalId, 'approve');
    const result = await call;
    expect(result.ok).toBe(true);
    expect(readFileSync(join(harness!.workspace, 'config.yml'), 'utf8')).toBe(`key: ${API_KEY}`);
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed']);
    expect(leaks(g.audit.forCall(result.meta.callId))).toBe(false);
    expect(leaks(result)).toBe(false);
    expect(leaks(g.calls.list())).toBe(false);
  });

  it('refuses a placeholder that names no secret before anyone is asked, saying how to define it', async () => {
    const g = await gateWithSecrets();
    let asked = false;
    g.events.subscribe('approvalRequested', () => (asked = true));
    const result = await g.executor.call({ tool: 'write_file', arguments: { path: 'out.txt', content: 'key: $ENV.NOPE' } });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(result.error?.message).toContain('$ENV.NOPE');
    expect(result.error?.message).toContain('toolgate secret set');
    expect(asked).toBe(false);
    expect(auditKinds(g, result.meta.callId)).toEqual(['invoked', 'capability', 'rejected']);
    expect(existsSync(join(harness!.workspace, 'out.txt'))).toBe(false);
  });

  it('refuses a placeholder inside a path argument, and writes nothing anywhere', async () => {
    const elsewhere = makeTempFolder();
    const g = await gateWithSecrets({}, { API_KEY, HOME: elsewhere });
    let asked = false;
    g.events.subscribe('approvalRequested', () => (asked = true));
    const result = await g.executor.call({ tool: 'write_file', arguments: { path: '$ENV.HOME/x', content: 'planted' } });
    expect(result.error?.code).toBe('EVALIDATION');
    expect(result.error?.message).toContain('$ENV.HOME');
    expect(result.error?.message).toContain('path');
    expect(asked).toBe(false);
    expect(readdirSync(harness!.workspace)).toEqual([]);
    expect(readdirSync(elsewhere)).toEqual([]);
    removeTempFolder(elsewhere);
  });

  it('$$ENV.API_KEY reaches the tool as the literal text $ENV.API_KEY', async () => {
    const g = await gateWithSecrets();
    const result = await g.executor.call({ tool: 'secret_probe', arguments: { text: '$$ENV.API_KEY' } });
    expect(result.ok).toBe(true);
    expect(result.data).toMatchObject({ text: '$ENV.API_KEY', length: '$ENV.API_KEY'.length, sha256: sha256('$ENV.API_KEY') });
    const started = g.audit.forCall(result.meta.callId).find((record) => record.kind === 'started')!;
    expect(started.payload).not.toHaveProperty('secrets');
  });
});

describe('executor: secrets from the secrets file in the gate’s home', () => {
  const NAME = 'TG_EXECUTOR_TEST_FILE_SECRET';
  const VALUE = 'from-the-file-91c2e';

  it('uses a value from a 0600 secrets.json, and refuses the call once the file is 0644, naming chmod 600', async () => {
    expect(process.env[NAME]).toBeUndefined();
    harness = await openGate({ toolModules: [OUTPUT_TOOLS] });
    approveEveryPrompt(harness.gate);
    const file = join(harness.home, 'secrets.json');
    writeFileSync(file, JSON.stringify({ [NAME]: VALUE }), { mode: 0o600 });
    chmodSync(file, 0o600);

    const used = await harness.gate.executor.call({ tool: 'secret_probe', arguments: { text: `$ENV.${NAME}` } });
    expect(used.ok).toBe(true);
    expect(used.data).toMatchObject({ text: `$ENV.${NAME}`, sha256: sha256(VALUE) });
    expect(JSON.stringify(harness.gate.audit.forCall(used.meta.callId))).not.toContain(VALUE);

    chmodSync(file, 0o644);
    const refused = await harness.gate.executor.call({ tool: 'secret_probe', arguments: { text: `$ENV.${NAME}` } });
    expect(refused.error?.code).toBe('EPERMISSION');
    expect(refused.error?.message).toContain(`chmod 600 ${file}`);
    expect(auditKinds(harness.gate, refused.meta.callId)).toEqual(['invoked', 'capability', 'rejected']);
  });
});
