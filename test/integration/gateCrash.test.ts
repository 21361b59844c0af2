/**
 * A gate that dies without closing (kill -9) and a state folder someone has touched since: the
 * next `toolgate serve` ends what the dead gate left open, refuses to write past a missing anchor
 * until a person accepts it, and serves agents again afterwards.
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { connectMcp, makeTempDirs, readToken, runCli, spawnServe, type ServeProcess, type TempDirs } from './helpers';

interface AuditLine {
  seq: number;
  callId: string;
  kind: string;
  payload: Record<string, unknown>;
}

let dirs: TempDirs | undefined;
const serves: ServeProcess[] = [];
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  for (const serve of serves.splice(0)) await serve.stop();
  dirs?.remove();
  dirs = undefined;
});

async function serveAndConnect(home: TempDirs): Promise<{ serve: ServeProcess; client: Client }> {
  const serve = await spawnServe(home);
  serves.push(serve);
  const client = await connectMcp(serve.mcpUrl, readToken(home.home));
  clients.push(client);
  return { serve, client };
}

async function auditRecords(home: string): Promise<AuditLine[]> {
  const listed = await runCli(['audit', 'list', '--json', '--limit', '1000'], home);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as AuditLine[];
}

async function waitForRecord(home: string, kind: string): Promise<AuditLine> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = (await auditRecords(home)).find((record) => record.kind === kind);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${kind} record within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function echoWorks(client: Client): Promise<void> {
  const result = await client.callTool({ name: 'echo', arguments: { text: 'still serving' } });
  expect(result.isError).toBeFalsy();
  expect(JSON.stringify(result.structuredContent)).toContain('still serving');
}

describe('a gate killed with kill -9 while a call waits for approval', () => {
  it('leaves an open call that verify names; the next start ends it as interrupted, verify passes, and agents are served', async () => {
    dirs = makeTempDirs();
    const first = await serveAndConnect(dirs);
    // The agent's call never gets an answer from this gate; its client gives up on its own.
    void first.client.callTool({ name: 'write_file', arguments: { path: 'plan.md', content: 'step one\n' } }).catch(() => undefined);
    const requested = await waitForRecord(dirs.home, 'approval-requested');
    const killed = new Promise((resolve) => first.serve.child.once('exit', resolve));
    first.serve.child.kill('SIGKILL');
    await killed;

    const afterCrash = await runCli(['audit', 'verify'], dirs.home);
    expect(afterCrash.code, afterCrash.stderr).toBe(0);
    expect(afterCrash.stdout).toContain('1 call(s) have no end record and no gate is running: the gate stopped before they ended');
    expect(afterCrash.stdout).toContain(`${requested.callId}  at approval-requested`);

    // The killed gate's newest records are still in audit.db-wal: a copy of the folder without it is caught.
    const copy = makeTempDirs();
    try {
      for (const name of ['audit.db', 'audit.head']) copyFileSync(join(dirs.home, name), join(copy.home, name));
      const withoutWal = await runCli(['audit', 'verify'], copy.home);
      expect(withoutWal.code).toBe(1);
      expect(withoutWal.stderr).toContain("-wal file was removed after the gate was killed");
    } finally {
      copy.remove();
    }

    const second = await serveAndConnect(dirs);
    const ofCall = (await auditRecords(dirs.home)).filter((record) => record.callId === requested.callId);
    expect(ofCall.map((record) => record.kind)).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'interrupted']);
    expect(ofCall.at(-1)!.payload).toMatchObject({ reason: 'the gate stopped before this call ended', lastStep: 'approval-requested' });

    const verified = await runCli(['audit', 'verify'], dirs.home);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^audit log intact: \d+ records verified\n$/);
    await echoWorks(second.client);
  });
});

describe('a gate started on a log whose head anchor was deleted', () => {
  it('refuses to start until a person accepts the log, then serves', async () => {
    dirs = makeTempDirs();
    const first = await serveAndConnect(dirs);
    await echoWorks(first.client);
    await first.serve.stop();
    rmSync(join(dirs.home, 'audit.head'));

    await expect(spawnServe(dirs)).rejects.toThrow(/exited with 2[\s\S]*so the gate will not add to it: the head anchor \S+ is missing/);
    const refused = await runCli(['audit', 'verify'], dirs.home);
    expect(refused.code).toBe(1);

    const accepted = await runCli(['audit', 'verify', '--accept-missing-anchor'], dirs.home);
    expect(accepted.code, accepted.stderr).toBe(0);
    const second = await serveAndConnect(dirs);
    await echoWorks(second.client);
    expect((await auditRecords(dirs.home)).map((record) => record.kind)).toContain('anchor-accepted');
    expect((await runCli(['audit', 'verify'], dirs.home)).code).toBe(0);
  });
});
