/**
 * The undo's bounds through the real gate: a store over its size drops the oldest before-images (the
 * calls they belonged to are then no longer undoable), a secret is never kept in the store, and an
 * undo never writes where the file tools may not (a path under .git/hooks, reached by its name or
 * through a symlink put on its way since).
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UndoReport } from '../../shared/effects';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { writeSecretsFile } from '../../main/secrets/secretsFile';
import { statePaths } from '../../main/state/paths';
import { WAIT_MS } from '../fixtures/processes';
import { callIdOf, connectMcp, makeTempDirs, readToken, textOf, type TempDirs, approveEveryPrompt } from '../integration/helpers';

const SECRET = 'dk-7Hq2Lw9Zp4Xv';
/** Room for about two of the files below: the third write drops the oldest image. */
const STORE_BYTES = 100_000;
const FILE_BYTES = 40_000;

let dirs: TempDirs;
let running: RunningGate;
let client: Client;

beforeAll(async () => {
  dirs = makeTempDirs();
  writeSecretsFile(statePaths(dirs.home).secrets, { DEPLOY_KEY: SECRET });
  mkdirSync(join(dirs.workspace, '.git/hooks'), { recursive: true });
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1, undoStoreBytes: STORE_BYTES });
  approveEveryPrompt(running.backend);
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
});

async function agentCall(name: string, args: Record<string, unknown>): Promise<string> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, textOf(result)).toBeFalsy();
  return callIdOf(result);
}

function undo(params: { callId: string; choices?: Record<string, 'keep-current' | 'restore-anyway'> }): Promise<UndoReport> {
  return running.backend.handlers.undoCall({ rewind: false, dryRun: false, choices: {}, ...params });
}

/** Every byte the undo store holds, as one text. */
function storeText(): string {
  const folder = statePaths(dirs.home).undoStore;
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'latin1'))
    .join('\n');
}

describe('the undo store and its bounds', () => {
  it('drops the oldest before-images once over its size: their call is no longer undoable, a newer one still is', async () => {
    const content = (letter: string) => `${letter.repeat(FILE_BYTES - 1)}\n`;
    const calls = [];
    for (const letter of ['a', 'b', 'c', 'd']) calls.push(await agentCall('write_file', { path: 'big.txt', content: content(letter) }));
    const oldest = await undo({ callId: calls[1]! });
    expect(oldest.outcome).toBe('not-undoable');
    expect(oldest.reason).toContain('no longer undoable');
    expect(readFileSync(join(dirs.workspace, 'big.txt'), 'utf8')).toBe(content('d'));
    const newest = await undo({ callId: calls[3]! });
    expect(newest.outcome, newest.reason).toBe('undone');
    expect(readFileSync(join(dirs.workspace, 'big.txt'), 'utf8')).toBe(content('c'));
  });

  it('keeps a secret the redactor knows only as its placeholder, and the undo says so', async () => {
    const secretFile = `API_KEY=${SECRET}\n`;
    await agentCall('write_file', { path: 'app.env', content: secretFile });
    const callId = await agentCall('write_file', { path: 'app.env', content: 'API_KEY=\n' });
    expect(storeText()).not.toContain(SECRET);
    const report = await undo({ callId });
    expect(report.outcome, report.reason).toBe('undone');
    expect(report.reason).toContain('placeholders where secrets were');
    expect(report.changes[0]).toMatchObject({ path: 'app.env', redacted: true });
    expect(readFileSync(join(dirs.workspace, 'app.env'), 'utf8')).toBe('API_KEY=$ENV.DEPLOY_KEY\n');
  });

  it('refuses an undo that would write into .git/hooks through a symlink put in place of a folder since', async () => {
    mkdirSync(join(dirs.workspace, 'tools'));
    writeFileSync(join(dirs.workspace, 'tools/pre-commit'), 'echo harmless\n');
    const callId = await agentCall('write_file', { path: 'tools/pre-commit', content: 'echo changed\n' });
    // A later command puts a symlink to the hooks folder where the folder was.
    await agentCall('shell_exec', { command: 'mv tools tools.old && ln -s .git/hooks tools' });
    const report = await undo({ callId, choices: { 'tools/pre-commit': 'restore-anyway' } });
    expect(report.outcome).toBe('not-undoable');
    expect(report.reason).toContain('symlink');
    expect(existsSync(join(dirs.workspace, '.git/hooks/pre-commit'))).toBe(false);
  });
});
