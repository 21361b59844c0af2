/**
 * A gate that dies without closing (kill -9) and a state folder someone has touched since: the
 * next `toolgate serve` ends what the dead gate left open, refuses to write past a missing anchor
 * until a person accepts it, and serves agents again afterwards. Durability is not traded for
 * speed: killed in the middle of a burst of calls from several agents, the gate has in its log,
 * closed, every call an agent got an answer for (it answers only once the group commit holding
 * the call's records is done).
 */
import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterEach, describe, expect, it } from 'vitest';
import { CLOSING_KINDS, type AuditRecord } from '../../shared/audit';
import { stepsOf } from '../../shared/auditSteps';
import { runCliHere } from './cliHere';
import { connectMcp, makeTempDirs, readToken, runCli, spawnServe, type ServeProcess, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

interface AuditLine {
  seq: number;
  callId: string;
  kind: string;
  payload: Record<string, unknown>;
}

const AGENTS = 6;
/** Answers received before the kill: enough that many calls are in flight, and committing, when it lands. */
const ANSWERS_BEFORE_KILL = 120;

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
  const listed = await runCliHere(['audit', 'list', '--json', '--limit', '100000'], home);
  expect(listed.code, listed.stderr).toBe(0);
  return JSON.parse(listed.stdout) as AuditLine[];
}

/** The log's steps, oldest first: each record's (one for a record of one step, several for a call's record of its steps). */
async function auditSteps(home: string): Promise<AuditLine[]> {
  return (await auditRecords(home)).flatMap((record) => stepsOf(record as unknown as AuditRecord) as unknown as AuditLine[]);
}

async function waitForRecord(home: string, kind: string): Promise<AuditLine> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const found = (await auditSteps(home)).find((record) => record.kind === kind);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no ${kind} record within ${WAIT_MS / 1000} s`);
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
    // Copied as the killed gate left it, before any reader opens the log (the last one to close it folds the WAL in).
    const copy = makeTempDirs();
    for (const name of ['audit.db', 'audit.head']) copyFileSync(join(dirs.home, name), join(copy.home, name));

    const afterCrash = await runCli(['audit', 'verify'], dirs.home);
    expect(afterCrash.code, afterCrash.stderr).toBe(0);
    expect(afterCrash.stdout).toContain('1 call has no end record and no gate is running: the gate stopped before it ended');
    expect(afterCrash.stdout).toContain(`${requested.callId}  at approval-requested`);

    // The killed gate's newest records are still in audit.db-wal: a copy of the folder without it is caught.
    try {
      const withoutWal = await runCliHere(['audit', 'verify'], copy.home);
      expect(withoutWal.code).toBe(1);
      expect(withoutWal.stderr).toContain("-wal file was removed after the gate was killed");
    } finally {
      copy.remove();
    }

    const second = await serveAndConnect(dirs);
    const ofCall = (await auditSteps(dirs.home)).filter((record) => record.callId === requested.callId);
    expect(ofCall.map((record) => record.kind)).toEqual(['invoked', 'capability', 'policy', 'approval-requested', 'interrupted']);
    // Its steps up to the prompt went in one record when the person was asked; the next start closed it.
    const stored = (await auditRecords(dirs.home)).filter((record) => record.callId === requested.callId);
    expect(stored.map((record) => record.kind)).toEqual(['call-begun', 'interrupted']);
    expect(ofCall.at(-1)!.payload).toMatchObject({ reason: 'the gate stopped before this call ended', lastStep: 'approval-requested' });

    const verified = await runCliHere(['audit', 'verify'], dirs.home);
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
    const refused = await runCliHere(['audit', 'verify'], dirs.home);
    expect(refused.code).toBe(1);

    const accepted = await runCliHere(['audit', 'verify', '--accept-missing-anchor'], dirs.home);
    expect(accepted.code, accepted.stderr).toBe(0);
    const second = await serveAndConnect(dirs);
    await echoWorks(second.client);
    expect((await auditRecords(dirs.home)).map((record) => record.kind)).toContain('anchor-accepted');
    expect((await runCliHere(['audit', 'verify'], dirs.home)).code).toBe(0);
  });
});

describe('a gate killed with SIGKILL during a burst of calls', () => {
  it('has in its log, closed, every call an agent got an answer for, and the log verifies', async () => {
    dirs = makeTempDirs();
    const serve = await spawnServe(dirs);
    serves.push(serve);
    for (let i = 0; i < AGENTS; i++) clients.push(await connectMcp(serve.mcpUrl, readToken(dirs.home)));

    const answered: string[] = [];
    let killed = false;
    let reachedKillPoint: () => void;
    const killPoint = new Promise<void>((resolve) => (reachedKillPoint = resolve));
    const agent = async (client: Client, n: number) => {
      for (let i = 0; !killed; i++) {
        let result;
        try {
          result = await client.callTool({ name: 'echo', arguments: { text: `agent ${n} call ${i}` } });
        } catch {
          return; // the gate is gone: this call got no answer
        }
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        answered.push(result._meta?.['toolgate/callId'] as string);
        if (answered.length >= ANSWERS_BEFORE_KILL) reachedKillPoint();
      }
    };
    const agents = clients.map((client, n) => agent(client, n));
    await killPoint;
    const exited = new Promise((resolve) => serve.child.once('exit', resolve));
    serve.child.kill('SIGKILL');
    killed = true;
    await exited;
    // Calls in flight get no answer now: closing the clients ends their wait (it would last the SDK's timeout).
    for (const client of clients) await client.close();
    await Promise.all(agents);
    // Only now is the list of answers final: an answer may have been in the socket as the kill landed.
    expect(answered.length).toBeGreaterThanOrEqual(ANSWERS_BEFORE_KILL);
    expect(answered.every((callId) => typeof callId === 'string' && callId.length > 0)).toBe(true);

    const closing = new Set<string>(CLOSING_KINDS);
    const closedCalls = (records: AuditLine[]) => new Set(records.filter((record) => closing.has(record.kind)).map((record) => record.callId));
    const closedAfterKill = closedCalls(await auditRecords(dirs.home));
    const missing = answered.filter((callId) => !closedAfterKill.has(callId));
    expect(missing, `${missing.length} of ${answered.length} answered calls have no closing record`).toEqual([]);

    const afterKill = await runCliHere(['audit', 'verify'], dirs.home);
    expect(afterKill.code, afterKill.stderr).toBe(0);
    expect(afterKill.stdout).toMatch(/^audit log intact: \d+ records verified/);

    // The next start closes whatever the kill cut off as interrupted; the answered calls keep their own end.
    const restarted = await spawnServe(dirs);
    serves.push(restarted);
    await restarted.stop();
    const steps = await auditSteps(dirs.home);
    const endOf = new Map(steps.filter((record) => closing.has(record.kind)).map((record) => [record.callId, record.kind]));
    for (const callId of answered) expect(endOf.get(callId)).toBe('completed');
    const verified = await runCliHere(['audit', 'verify'], dirs.home);
    expect(verified.code, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^audit log intact: \d+ records verified\n$/);
  }, 120_000);
});
