/**
 * A shell command a person approved, run inside the real sandbox, prints a stored secret that sits
 * in a workspace file: whole, base64- and hex-encoded, and a few characters at a time with pauses
 * longer than any hold-back timer. Neither the agent's result nor the console's live terminal ever
 * carries the value; the gate keeps serving.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { statePaths } from '../../main/state/paths';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

const SECRET = 'sh-S3cr3t-9d2f7a1c';

let dirs: TempDirs;
let running: RunningGate;
let client: Client;
const streamed: string[] = [];

beforeAll(async () => {
  dirs = makeTempDirs();
  writeSecretsFile(statePaths(dirs.home).secrets, { DEPLOY_KEY: SECRET });
  // The secret sits in a file of the workspace (a .env someone committed); no call named it.
  writeFileSync(join(dirs.workspace, 'app.env'), SECRET);
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
  running.backend.subscribe('callOutput', ({ chunk }) => streamed.push(chunk));
  running.backend.subscribe('approvalRequested', (request) => {
    void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  });
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
});

/** Runs of 6 characters of the secret or of its encodings, any of which would give part of it away. */
function leaks(text: string): string[] {
  const forms = [SECRET, Buffer.from(SECRET).toString('base64').slice(0, 20), Buffer.from(SECRET).toString('hex')];
  return forms.filter((form) => text.includes(form));
}

describe('secrets in a shell inside the sandbox', () => {
  it('a secret printed whole, encoded, and a few characters at a time with pauses never reaches the agent or the live terminal', async () => {
    expect(running.gate.sandbox.kind).toBe('bubblewrap');
    const command = [
      'cat app.env; echo',
      'base64 -w0 app.env; echo',
      'od -An -tx1 app.env | tr -d " \\n"; echo',
      // Three characters, then a pause longer than any timer a stream might flush on, and so on.
      ...['1-3', '4-6', '7-9', '10-12', '13-15', '16-18'].map((range) => `cut -c${range} app.env | tr -d "\\n"; sleep 0.3`),
      'echo',
    ].join('; ');
    const result = (await client.callTool({ name: 'shell_exec', arguments: { command } })) as CallToolResult;
    const text = textOf(result);
    expect(result.isError, text).toBeFalsy();
    expect(text).toContain('$ENV.DEPLOY_KEY');
    expect(leaks(text)).toEqual([]);

    const terminal = streamed.join('');
    expect(terminal).toContain('$ENV.DEPLOY_KEY');
    expect(leaks(terminal)).toEqual([]);
    // The slow, sliced print came back together as the placeholder, not as pieces of the value.
    expect(terminal.split('$ENV.DEPLOY_KEY').length - 1).toBeGreaterThanOrEqual(4);

    const echo = (await client.callTool({ name: 'echo', arguments: { text: 'still serving' } })) as CallToolResult;
    expect(textOf(echo)).toContain('still serving');
  });
});
