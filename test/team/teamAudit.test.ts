/**
 * Witnessed audit: `toolgate serve --team --checkpoint-dir` publishes its signed checkpoints to the
 * team, and `toolgate audit verify --team` catches a log rewritten on the gate's own machine, its
 * chain and head anchor recomputed and its checkpoint folder wiped, by what the team's server keeps.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GENESIS_HASH, type AuditKind } from '../../shared/audit';
import { recordHash } from '../../main/audit/recordHash';
import { openDatabase } from '../../main/audit/sqlite';
import { runCliHere } from '../integration/cliHere';
import type { TeamStatus } from '../../shared/team';
import { waitUntil } from '../fixtures/processes';
import { BridgeClient, connectMcp, makeTempDirs, readConsoleToken, readToken, spawnServe, type TempDirs } from '../integration/helpers';
import { startNatsServer, type TestNatsServer } from './natsServer';

let server: TestNatsServer;
let dirs: TempDirs;

beforeAll(async () => {
  server = await startNatsServer('acme', { a: ['gate'] });
  dirs = makeTempDirs();
});

afterAll(async () => {
  dirs?.remove();
  await server?.close();
});

/** What someone with the state folder does: changes record 1, recomputes the whole chain and the head anchor. */
function rewriteFirstRecord(home: string): void {
  const db = openDatabase(join(home, 'audit.db'));
  try {
    db.exec('DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;');
    db.prepare("UPDATE audit SET payload = '{\"tool\":\"nothing\"}' WHERE seq = 1").run();
    let prev = GENESIS_HASH;
    const rows = db.prepare('SELECT seq, call_id, kind, time, payload FROM audit ORDER BY seq').all() as Array<{ seq: number; call_id: string; kind: AuditKind; time: string; payload: string }>;
    for (const row of rows) {
      const before = prev;
      prev = recordHash(prev, { seq: row.seq, callId: row.call_id, kind: row.kind, time: row.time, payload: JSON.parse(row.payload) });
      db.prepare('UPDATE audit SET hash = ?, prev_hash = ? WHERE seq = ?').run(prev, before, row.seq);
    }
    writeFileSync(join(home, 'audit.head'), `${String(rows.length).padStart(20, '0')} ${prev}\n`);
  } finally {
    db.close();
  }
}

describe('a gate\'s audit, witnessed by the team', () => {
  it('passes audit verify --team as written, and fails it once rewritten on the gate\'s machine, even with its own checkpoints gone', async () => {
    const folder = join(dirs.outside, 'checkpoints');
    const credentials = server.members.get('a')!.file;
    const serve = await spawnServe(dirs, ['--team', server.url, '--team-creds', credentials, '--checkpoint-dir', folder]);
    try {
      const agent = await connectMcp(serve.mcpUrl, readToken(dirs.home));
      writeFileSync(join(dirs.workspace, 'note.txt'), 'hello');
      expect((await agent.callTool({ name: 'read_file', arguments: { path: 'note.txt' } })).isError).toBe(false);
      await agent.close();
      // The gate sends its last checkpoint as it stops, but only to a server it has reached and for a
      // moment only: it is stopped once online, with nothing else waiting to be sent.
      const bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
      try {
        await waitUntil(async () => {
          const status = (await bridge.request('teamStatus', {})) as { ok: boolean; value?: TeamStatus };
          return status.ok && status.value?.state === 'online' && status.value.queued === 0;
        }, 'the gate to reach the team server and send what it queued');
      } finally {
        bridge.close();
      }
    } finally {
      await serve.stop();
    }
    writeFileSync(join(dirs.home, 'settings.json'), JSON.stringify({ team: server.url, teamCreds: credentials }));
    const intact = await runCliHere(['audit', 'verify', '--team'], dirs.home);
    expect(intact.code, intact.stdout + intact.stderr).toBe(0);

    rewriteFirstRecord(dirs.home);
    rmSync(folder, { recursive: true, force: true });
    // The chain alone cannot tell: it was recomputed.
    expect((await runCliHere(['audit', 'verify'], dirs.home)).code).toBe(0);
    const caught = await runCliHere(['audit', 'verify', '--team', '--json'], dirs.home);
    expect(caught.code).toBe(1);
    expect(JSON.parse(caught.stdout).checkpoint).toMatchObject({ ok: false, problem: 'rewritten' });
  });
});
