/**
 * `toolgate serve --checkpoint-dir DIR` as a person runs it: the gate signs checkpoints of its audit
 * log into the folder (and a last one when it stops), the console reads their state over the bridge,
 * `audit verify --checkpoint` accepts them, and a folder inside the state folder stops the start.
 * A deleted or replaced signing key stops the start too, until `audit key rotate` records the change.
 */
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH, type AuditKind } from '../../shared/audit';
import { recordHash } from '../../main/audit/recordHash';
import { openDatabase } from '../../main/audit/sqlite';
import { runCliHere } from './cliHere';
import { BridgeClient, connectMcp, makeTempDirs, readConsoleToken, readToken, runCli, spawnServe, type TempDirs } from './helpers';

let dirs: TempDirs;
beforeEach(() => {
  dirs = makeTempDirs();
});
afterEach(() => dirs.remove());

describe('a gate with a checkpoint folder', () => {
  it('signs a checkpoint of every record when it stops, which audit verify --checkpoint accepts, and shows it in the console', async () => {
    const folder = join(dirs.outside, 'checkpoints');
    const serve = await spawnServe(dirs, ['--checkpoint-dir', folder]);
    try {
      expect(serve.stdout()).toContain(`audit      signed checkpoints in ${folder} (every 1000 records or 60 s)`);
      const agent = await connectMcp(serve.mcpUrl, readToken(dirs.home));
      writeFileSync(join(dirs.workspace, 'note.txt'), 'hello');
      const read = await agent.callTool({ name: 'read_file', arguments: { path: 'note.txt' } });
      expect(read.isError).toBeFalsy();
      await agent.close();
      const bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
      try {
        const reply = (await bridge.request('checkpointStatus', {})) as { ok: boolean; value: Record<string, any> };
        expect(reply.ok).toBe(true);
        expect(reply.value.folder).toBe(folder);
        expect(reply.value.verifierKey).toBe((await runCliHere(['audit', 'key'], dirs.home)).stdout.trim());
        // The gate signed the log as it found it, empty; the call's records wait for the next checkpoint.
        expect(reply.value.latest).toMatchObject({ verified: false, size: 0, detail: expect.stringContaining('nothing signed yet'), rootHash: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/) });
      } finally {
        bridge.close();
      }
    } finally {
      await serve.stop();
    }
    const listed = JSON.parse((await runCliHere(['audit', 'list', '--limit', '1000', '--json'], dirs.home)).stdout) as unknown[];
    const records = listed.length;
    const checkpointFile = readdirSync(folder).find((name) => /^[0-9a-f]{32}\.checkpoint$/.test(name))!;
    const note = readFileSync(join(folder, checkpointFile), 'utf8');
    expect(note.split('\n')[1]).toBe(String(records));
    const verify = await runCliHere(['audit', 'verify', '--checkpoint', join(folder, checkpointFile)], dirs.home);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain(`records 1 to ${records} are the ones signed`);
  });

  it('tells the console how to choose a folder when none was chosen', async () => {
    const serve = await spawnServe(dirs);
    try {
      const bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
      try {
        const reply = (await bridge.request('checkpointStatus', {})) as { ok: boolean; value: Record<string, any> };
        expect(reply.value.folder).toBeUndefined();
        expect(reply.value.problem).toContain('no checkpoint folder chosen');
        expect(reply.value.problem).toContain('--checkpoint-dir DIR');
      } finally {
        bridge.close();
      }
    } finally {
      await serve.stop();
    }
  });

  it('refuses to start with the folder inside the state folder, from the flag or settings.json', async () => {
    let run = await runCli(['serve', '--workspace', dirs.workspace, '--port', '0', '--checkpoint-dir', join(dirs.home, 'cp')], dirs.home);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the checkpoint folder ${join(dirs.home, 'cp')} is inside the state folder`);
    expect(existsSync(join(dirs.home, 'cp'))).toBe(false);
    writeFileSync(join(dirs.home, 'settings.json'), JSON.stringify({ checkpointDir: join(dirs.workspace, 'cp') }));
    run = await runCli(['serve', '--workspace', dirs.workspace, '--port', '0'], dirs.home);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('is inside the workspace');
  });
});

/** One agent call through the gate, so the log has records to sign. */
async function oneCall(serve: { mcpUrl: string }, home: string, workspace: string): Promise<void> {
  const agent = await connectMcp(serve.mcpUrl, readToken(home));
  try {
    writeFileSync(join(workspace, 'note.txt'), 'hello');
    expect((await agent.callTool({ name: 'read_file', arguments: { path: 'note.txt' } })).isError).toBeFalsy();
  } finally {
    await agent.close();
  }
}

/** A gate run with one call, stopped again. */
async function runGateOnce(folder: string): Promise<void> {
  const serve = await spawnServe(dirs, ['--checkpoint-dir', folder]);
  try {
    await oneCall(serve, dirs.home, dirs.workspace);
  } finally {
    await serve.stop();
  }
}

function serveOnce(folder: string) {
  return runCli(['serve', '--workspace', dirs.workspace, '--port', '0', '--checkpoint-dir', folder], dirs.home);
}

describe('a gate whose checkpoint key is gone or replaced', () => {
  it('does not start with a fresh key; starts again after audit key rotate, and the old and new checkpoints both verify', async () => {
    const folder = join(dirs.outside, 'checkpoints');
    await runGateOnce(folder);
    const oldKey = (await runCliHere(['audit', 'key'], dirs.home)).stdout.trim();
    const oldId = oldKey.split('+').slice(0, 2).join('+');
    const oldCheckpoints = readdirSync(folder).filter((name) => /\.\d{12}\.checkpoint$/.test(name));

    // The key is deleted: the gate does not make a new one and sign on.
    rmSync(join(dirs.home, 'checkpoint-key'));
    let start = await serveOnce(folder);
    expect(start.code).toBe(2);
    expect(start.stderr).toContain(`the checkpoint folder ${folder} holds checkpoints of this log`);
    expect(start.stderr).toContain(`signed by ${oldId}`);
    expect(start.stderr).toContain("this gate's checkpoint key");
    expect(start.stderr).toContain('is gone');
    expect(start.stderr).toContain(`toolgate audit key rotate --checkpoint-dir ${folder}`);
    expect(existsSync(join(dirs.home, 'checkpoint-key'))).toBe(false);

    // Nor with another key put in its place, or with the newest checkpoint removed as well.
    const strangerId = (await runCliHere(['audit', 'key'], dirs.home)).stdout.trim().split('+').slice(0, 2).join('+');
    rmSync(join(folder, readdirSync(folder).find((name) => /^[0-9a-f]{32}\.checkpoint$/.test(name))!));
    start = await serveOnce(folder);
    expect(start.code).toBe(2);
    expect(start.stderr).toContain(`signed by ${oldId}`);
    expect(start.stderr).toContain(`is ${strangerId}`);

    const rotate = await runCliHere(['audit', 'key', 'rotate', '--checkpoint-dir', folder, '--reason', 'the old disk died'], dirs.home);
    expect(rotate.code).toBe(0);
    expect(rotate.stdout).toContain(`${oldId} did not sign the change`);
    expect(rotate.stdout).toContain(`The key file held ${strangerId}, which no entry of the key history names: a new key replaced it`);
    const newKey = (await runCliHere(['audit', 'key'], dirs.home)).stdout.trim();
    expect(newKey).not.toBe(oldKey);
    expect(newKey.startsWith(strangerId)).toBe(false);
    expect(rotate.stdout).toContain(newKey);

    await runGateOnce(folder);
    const verify = await runCliHere(['audit', 'verify', '--checkpoint-dir', folder], dirs.home);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain(`key 0: ${oldId}, the log's first checkpoint key`);
    expect(verify.stdout).toMatch(new RegExp(`key 1: ${newKey.split('+').slice(0, 2).join('\\+')} replaced ${oldId.replace('+', '\\+')} from \\d+ records? on \\(.*: the old disk died\\); ${oldId.replace('+', '\\+')} did not sign the change`));
    for (const name of oldCheckpoints.filter((file) => !file.includes('.000000000000.'))) {
      expect(verify.stdout).toMatch(new RegExp(`checkpoint ${name.replace(/\./g, '\\.')} verified: .*trusted key: ${oldId.replace('+', '\\+')}, key 0 of the key history`));
    }
    expect(verify.stdout).toMatch(/checkpoints of this log in .*: \d+ verified, \d+ with nothing signed yet, 0 failed/);
    const records = JSON.parse((await runCliHere(['audit', 'list', '--limit', '1000', '--json'], dirs.home)).stdout) as Array<{ kind: string; payload: { previousKey: string; key: string } }>;
    expect(records.filter((record) => record.kind === 'key-rotated').map((record) => record.payload)).toMatchObject([{ previousKey: oldKey, key: newKey }]);

    // An old checkpoint stays verifiable with the key that signed it, as someone holding only that key checks it.
    const oldSigned = join(folder, oldCheckpoints.sort().at(-1)!);
    expect((await runCliHere(['audit', 'verify', '--checkpoint', oldSigned, '--key', oldKey], dirs.home)).code).toBe(0);
  });

  it('refuses to rotate the key over a log rewritten after the old key signed it', async () => {
    const folder = join(dirs.outside, 'checkpoints');
    await runGateOnce(folder);
    // Someone with the state folder rewrites a record, recomputes the chain and the anchor, and drops the key.
    const db = openDatabase(join(dirs.home, 'audit.db'));
    try {
      db.exec('DROP TRIGGER audit_no_update; DROP TRIGGER audit_no_delete;');
      db.prepare("UPDATE audit SET payload = '{\"tool\":\"nothing\"}' WHERE seq = 1").run();
      let prev = GENESIS_HASH;
      const rows = db.prepare('SELECT seq, call_id, kind, time, payload FROM audit ORDER BY seq').all() as Array<{ seq: number; call_id: string; kind: AuditKind; time: string; payload: string }>;
      for (const row of rows) {
        prev = recordHash(prev, { seq: row.seq, callId: row.call_id, kind: row.kind, time: row.time, payload: JSON.parse(row.payload) });
        db.prepare('UPDATE audit SET hash = ?, prev_hash = ? WHERE seq = ?').run(prev, row.seq === 1 ? GENESIS_HASH : (db.prepare('SELECT hash FROM audit WHERE seq = ?').get(row.seq - 1) as { hash: string }).hash, row.seq);
      }
      writeFileSync(join(dirs.home, 'audit.head'), `${String(rows.length).padStart(20, '0')} ${prev}\n`);
    } finally {
      db.close();
    }
    rmSync(join(dirs.home, 'checkpoint-key'));
    expect((await runCliHere(['audit', 'verify'], dirs.home)).code).toBe(0);
    const rotate = await runCliHere(['audit', 'key', 'rotate', '--checkpoint-dir', folder], dirs.home);
    expect(rotate.code).toBe(2);
    expect(rotate.stderr).toContain('the audit log does not match the checkpoint the old key');
    expect(rotate.stderr).toContain('so the key is not rotated');
    expect((await serveOnce(folder)).code).toBe(2);
  });
});
