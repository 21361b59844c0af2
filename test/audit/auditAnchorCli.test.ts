/**
 * `toolgate audit verify` against someone who holds the state folder: every way of hiding a cut
 * or replaced log by touching the head anchor or the database files is a named failure (exit 1),
 * and a missing anchor is accepted only deliberately, on the record.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { statePaths } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, tamper, toolgate as realToolgate, writeRecords } from './auditFixture';
import { runCliHere } from '../integration/cliHere';

let home: string;
let paths: ReturnType<typeof statePaths>;

beforeEach(() => {
  home = makeTempFolder();
  paths = statePaths(home);
  writeRecords(home, 10);
});
afterEach(() => removeTempFolder(home));

/** A command run in this process, through the same main() the built CLI runs. */
function toolgate(...args: string[]) {
  return runCliHere(args, home);
}

/** The built CLI in a process of its own, as a person runs it: for the tests docs/guards.md names as through the real CLI. */
async function realCli(...args: string[]) {
  return realToolgate(home, ...args);
}

/** What `audit list --json` shows: the log as a person reads it. */
async function listed(): Promise<Array<{ seq: number; kind: string; payload: Record<string, unknown> }>> {
  return JSON.parse((await toolgate('audit', 'list', '--limit', '1000', '--json')).stdout);
}

/** A gate.json naming this (live) test process, as a running gate leaves it. */
function pretendGateRuns(): void {
  writeFileSync(paths.gate, JSON.stringify({ pid: process.pid, port: 1, mcpUrl: 'x', consoleUrl: 'x', workspace: home }));
}

function cutTailAndAnchor(): void {
  tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq > 7').run());
  rmSync(paths.auditHead);
}

describe('audit verify: a missing head anchor', () => {
  it('fails when the anchor was deleted together with a cut tail, and says how to accept it', async () => {
    cutTailAndAnchor();
    const run = (await toolgate('audit', 'verify'));
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain(`the head anchor ${paths.auditHead} is missing, but the log has 7 records`);
    expect(run.stderr).toContain('toolgate audit verify --accept-missing-anchor');
    expect(JSON.parse((await toolgate('audit', 'verify', '--json')).stdout)).toMatchObject({ ok: false, records: 7, problem: 'anchor-missing' });
  });

  it('--accept-missing-anchor re-anchors at the current head, records who accepted it, and cut tails show again', async () => {
    cutTailAndAnchor();
    const accept = (await toolgate('audit', 'verify', '--accept-missing-anchor'));
    expect(accept.code).toBe(0);
    expect(accept.stdout).toContain("accepted: the log's 7 records are anchored again, and record 8 (anchor-accepted) says so");
    expect(accept.stdout).toContain('audit log intact: 8 records verified');
    const last = (await listed()).at(-1)!;
    expect(last).toMatchObject({ seq: 8, kind: 'anchor-accepted', payload: { acceptedHead: { seq: 7 } } });
    expect(last.payload.by).toEqual(expect.stringContaining('@'));
    expect((await toolgate('audit', 'verify'))).toMatchObject({ code: 0, stderr: '' });

    // The new anchor guards the tail like the old one did.
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq = 8').run());
    expect((await toolgate('audit', 'verify'))).toMatchObject({ code: 1, stderr: expect.stringContaining('cut from its end') });
  });

  it('--accept-missing-anchor refuses, writing nothing, when the anchor is there, the chain is broken, or a gate runs', async () => {
    expect((await toolgate('audit', 'verify', '--accept-missing-anchor'))).toMatchObject({ code: 2, stderr: expect.stringContaining('nothing to accept') });

    tamper(home, (db) => db.prepare("UPDATE audit SET payload = '{}' WHERE seq = 2").run());
    rmSync(paths.auditHead);
    const broken = (await toolgate('audit', 'verify', '--accept-missing-anchor'));
    expect(broken.code).toBe(1);
    expect(broken.stderr).toContain('accepts only a missing head anchor');
    expect(broken.stderr).toContain('record 2 was changed after it was written');

    pretendGateRuns();
    const running = (await toolgate('audit', 'verify', '--accept-missing-anchor'));
    expect(running.code).toBe(2);
    expect(running.stderr).toContain(`a gate is running for ${home} (pid ${process.pid})`);
    expect(await listed()).toHaveLength(10);
    expect((await toolgate('audit', 'verify')).code).toBe(1);
  });
});

describe('audit verify: an anchor that does not match the log', () => {
  it('names the cut when the anchor points past the end', async () => {
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq > 6').run());
    const run = (await realCli('audit', 'verify'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('audit log broken at seq 7: the log ends at seq 6 but the gate wrote up to seq 10: records were cut from its end');
  });

  it('names the record whose hash differs from the anchor', async () => {
    writeFileSync(paths.auditHead, `${'10'.padStart(20, '0')} ${'ab'.repeat(32)}\n`);
    const run = (await realCli('audit', 'verify'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('audit log broken at seq 10: record 10 is not the one the gate wrote last');
    expect(run.stderr).toContain('abababababababab');
  });

  it('says the database was replaced or emptied when it has no records but the anchor says there were', async () => {
    tamper(home, (db) => db.prepare('DELETE FROM audit').run());
    const run = (await toolgate('audit', 'verify'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the log has no records, but the head anchor says the gate wrote up to seq 10: the database was replaced or emptied');
  });

  it('says the database is missing when its file was deleted and the anchor remains', async () => {
    for (const file of [paths.audit, `${paths.audit}-wal`, `${paths.audit}-shm`]) rmSync(file, { force: true });
    const run = (await realCli('audit', 'verify'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the audit database ${paths.audit} is missing, but the head anchor says the gate wrote 10 records: it was deleted or moved`);
  });

  it('says the database cannot be read when its file was replaced by something that is not SQLite', async () => {
    writeFileSync(paths.audit, 'not a database, just text long enough to be a header '.repeat(4));
    const run = (await toolgate('audit', 'verify'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the audit database ${paths.audit} cannot be read as SQLite`);
  });
});

describe('audit verify: a damaged anchor file', () => {
  it.each([
    ['garbage', () => writeFileSync(paths.auditHead, 'all good, nothing to see\n'), 'it holds "all good, nothing to see\\n", not a seq and a hash'],
    ['empty', () => writeFileSync(paths.auditHead, ''), 'it is empty, not a seq and a hash'],
    ['a seq without its hash', () => writeFileSync(paths.auditHead, `${'3'.padStart(20, '0')}\n`), `it holds "${'3'.padStart(20, '0')}\\n", not a seq and a hash`],
    [
      'a folder',
      () => {
        rmSync(paths.auditHead);
        mkdirSync(paths.auditHead);
      },
      'it cannot be read (EISDIR)',
    ],
  ])('names an anchor that is %s, and says how to go on', async (_name, damage, why) => {
    damage();
    const run = (await toolgate('audit', 'verify'));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`audit log not verified: the head anchor ${paths.auditHead} is damaged: ${why}`);
    expect(run.stderr).toContain(`mv ${paths.auditHead} ${paths.auditHead}.damaged`);
  });
});

describe('audit verify: calls without an end', () => {
  function leaveCallOpen(): void {
    const store = new AuditStore(auditPaths(home));
    store.append({ callId: 'waiting-call', kind: 'invoked', payload: { tool: 'write_file' } });
    store.append({ callId: 'waiting-call', kind: 'approval-requested', payload: {} });
    store.close();
  }

  it('reports nothing open when every call ended', async () => {
    const run = (await toolgate('audit', 'verify'));
    expect(run).toMatchObject({ code: 0, stdout: 'audit log intact: 10 records verified\n', stderr: '' });
  });

  it('lists a call with no end record and says the gate that wrote it stopped', async () => {
    leaveCallOpen();
    const run = (await toolgate('audit', 'verify'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('audit log intact: 12 records verified');
    expect(run.stdout).toContain('1 call has no end record and no gate is running: the gate stopped before it ended');
    expect(run.stdout).toMatch(/waiting-call {2}at approval-requested since \S+ \(seq 12\)/);
    expect(JSON.parse((await toolgate('audit', 'verify', '--json')).stdout)).toMatchObject({
      ok: true,
      gateRunning: false,
      openCalls: [{ callId: 'waiting-call', lastSeq: 12, lastKind: 'approval-requested' }],
    });
  });

  it('tells calls still under way in a running gate from calls of a gate that stopped', async () => {
    leaveCallOpen();
    pretendGateRuns();
    const run = (await toolgate('audit', 'verify'));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`1 call under way in the running gate (pid ${process.pid}), not ended yet:`);
    expect(run.stdout).not.toContain('no gate is running');
  });
});
