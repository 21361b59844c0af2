/**
 * The checkpoint key history, through the real CLI: `audit verify --checkpoint-dir` checks every
 * checkpoint of the log in a folder under the key in force for it and names each one that fails; a
 * checkpoint of 0 records signs nothing; a checkpoint is never trusted on the state folder's key
 * alone; `audit key rotate` keeps old checkpoints verifiable and a retired key signs nothing new.
 */
import { generateKeyPairSync } from 'node:crypto';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { formatCheckpoint, parseCheckpoint } from '../../main/audit/checkpoint';
import { createCheckpointKey, generateCheckpointKey, readCheckpointKey, saveCheckpointKey } from '../../main/audit/checkpointKey';
import { CheckpointWriter } from '../../main/audit/checkpointWriter';
import { openNote, signNote, splitNote } from '../../main/audit/signedNote';
import { startCheckpoints } from '../../main/audit/startCheckpoints';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';
import { runCliHere } from '../integration/cliHere';

let root: string;
let home: string;
let folder: string;

beforeEach(() => {
  root = makeTempFolder();
  home = join(root, 'home');
  folder = join(root, 'checkpoints');
  mkdirSync(home);
});
afterEach(() => removeTempFolder(root));

/** A command run in this process, through the same main() the built CLI runs. */
function toolgate(...args: string[]) {
  return runCliHere(args, home);
}

/** A gate's run as startCheckpoints sets it up: `count` records, a checkpoint every `every` and at close. */
function gateRun(count: number, every = 5): void {
  const store = new AuditStore(auditPaths(home));
  const writer = startCheckpoints({ dir: folder, everyRecords: every }, { home, workspace: join(root, 'ws'), audit: store, onFailure: () => {} })!;
  for (let i = 0; i < count; i++) store.append({ callId: `call-${i}`, kind: 'invoked', payload: { step: i } });
  writer.close();
  store.close();
}

function checkpointNames(): string[] {
  return readdirSync(folder)
    .filter((name) => /\.\d{12}\.checkpoint$/.test(name))
    .sort();
}

function logId(): string {
  return readdirSync(folder).find((name) => /^[0-9a-f]{32}\.checkpoint$/.test(name))!.slice(0, 32);
}

describe('audit verify --checkpoint-dir', () => {
  it('checks every checkpoint in the folder and names the forged and the altered one among the good ones', async () => {
    gateRun(12, 5);
    const good = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(good.code).toBe(0);
    expect(good.stdout).toMatch(/checkpoints of this log in .*: 4 verified, 1 with nothing signed yet, 0 failed/);

    // One signed by a key no one vouched for, over the very tree the log holds; one with its text changed after signing.
    const [, tenth] = checkpointNames().map((name) => join(folder, name)).slice(1);
    const text = splitNote(readFileSync(tenth!, 'utf8')).text;
    const forged = join(folder, `${logId()}.000000000007.checkpoint`);
    writeFileSync(forged, signNote(text.replace(/\n10\n/, '\n7\n'), 'toolgate-vm-abcdef01', generateKeyPairSync('ed25519').privateKey));
    writeFileSync(tenth!, readFileSync(tenth!, 'utf8').replace(/\n10\n/, '\n9\n'));
    const run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`checkpoint ${logId()}\\.000000000007\\.checkpoint check failed \\(other-key\\): .* is signed by toolgate-vm-abcdef01\\+[0-9a-f]{8}, which is none of the keys trusted`));
    expect(run.stderr).toContain(`checkpoint ${logId()}.000000000010.checkpoint check failed (bad-signature)`);
    expect(run.stdout).toContain(`checkpoint ${logId()}.000000000005.checkpoint verified`);
    expect(run.stderr).toMatch(/: 3 verified, 1 with nothing signed yet, 2 failed/);
    expect(JSON.parse((await toolgate('audit', 'verify', '--checkpoint-dir', folder, '--json')).stdout).checkpointDir.checkpoints).toEqual(
      expect.arrayContaining([expect.objectContaining({ file: forged, ok: false, problem: 'other-key' })]),
    );
  });

  it('fails a folder that holds checkpoints of other logs only, naming them', async () => {
    gateRun(3);
    const other = '0123456789abcdef0123456789abcdef';
    for (const name of readdirSync(folder)) renameSync(join(folder, name), join(folder, name.replace(/^[0-9a-f]{32}/, other)));
    const run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`holds no checkpoint of this log`);
    expect(run.stderr).toContain(`it holds checkpoints of toolgate/${other}: this log may have replaced the one they sign`);
  });

  it('fails every checkpoint when an entry of the key history was altered or removed', async () => {
    gateRun(6);
    const entry = join(folder, `${logId()}.key.0000.note`);
    const original = readFileSync(entry, 'utf8');
    writeFileSync(entry, original.replace('\nfrom 0\n', '\nfrom 1\n'));
    let run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`check failed (key-history): the key entry ${entry} its signature by`);
    writeFileSync(entry, original);
    // A rotation, then its entry 0 taken away: the history no longer starts anywhere.
    expect((await toolgate('audit', 'key', 'rotate', '--checkpoint-dir', folder)).code).toBe(0);
    rmSync(entry);
    run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`the key history in ${folder} lacks entry 0`);
  });
});

describe('a checkpoint of 0 records', () => {
  it('is reported as nothing signed yet, with an exit code that is not the verified one', async () => {
    gateRun(8);
    const empty = join(folder, checkpointNames()[0]!);
    expect(parseCheckpoint(splitNote(readFileSync(empty, 'utf8')).text).size).toBe(0);
    const run = (await toolgate('audit', 'verify', '--checkpoint', empty));
    expect(run.code).toBe(2);
    expect(run.stdout).not.toContain('checkpoint verified');
    expect(run.stderr).toContain(`checkpoint: nothing signed yet: ${empty} signs a tree of 0 records`);
    expect(run.stderr).toContain("vouches for none of the log's 8 records");
    expect(JSON.parse((await toolgate('audit', 'verify', '--checkpoint', empty, '--json')).stdout).checkpoint).toMatchObject({ ok: false, problem: 'nothing-signed' });
  });
});

describe('the key a checkpoint is trusted by', () => {
  it('is never the state folder key alone: a checkpoint signed by a key put there verifies only against what the person kept', async () => {
    gateRun(6);
    const kept = (await toolgate('audit', 'key')).stdout.trim();
    // Someone with the state folder puts their own key there and signs the log's tree with it.
    const theirs = createCheckpointKey(home, `toolgate/${logId()}`);
    const note = readFileSync(join(folder, `${logId()}.checkpoint`), 'utf8');
    const signed = join(root, 'newest.checkpoint');
    writeFileSync(signed, signNote(splitNote(note).text, theirs.name, theirs.privateKey));
    let run = (await toolgate('audit', 'verify', '--checkpoint', signed));
    expect(run.code).toBe(2);
    expect(run.stdout).not.toContain('checkpoint verified');
    expect(run.stderr).toContain('The key in the state folder is not taken on its own word');
    run = (await toolgate('audit', 'verify', '--checkpoint', signed, '--key', kept));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(other-key)');
    // Beside the key history, it is not one of the history's keys.
    copyFileSync(signed, join(folder, 'newest.checkpoint'));
    run = (await toolgate('audit', 'verify', '--checkpoint', join(folder, 'newest.checkpoint')));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`which is none of the keys trusted (the key history in ${folder}: ${kept.split('+').slice(0, 2).join('+')})`);
    // The original, beside its history, says which key it trusted and from where.
    run = (await toolgate('audit', 'verify', '--checkpoint', join(folder, `${logId()}.checkpoint`)));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`(trusted key: ${kept.split('+').slice(0, 2).join('+')}, key 0 of the key history in ${folder})`);
  });

  it('after a planned rotation, is the old key up to the rotation and the new one after; the old key signs nothing later', async () => {
    gateRun(7);
    const old = readCheckpointKey(home)!;
    const rotate = (await toolgate('audit', 'key', 'rotate', '--checkpoint-dir', folder, '--reason', 'yearly'));
    expect(rotate.code).toBe(0);
    expect(rotate.stdout).toContain(`${old.verifier.name}+${old.verifier.keyHash.toString('hex')} signed the change too`);
    gateRun(4);
    let run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('signed the change too');
    expect(run.stdout).toMatch(new RegExp(`checkpoint ${logId()}\\.000000000007\\.checkpoint verified: .*key 0 of the key history`));
    expect(run.stdout).toMatch(new RegExp(`checkpoint ${logId()}\\.000000000012\\.checkpoint verified: .*key 1 of the key history`));

    // Whoever kept the retired key signs the log's newer tree with it: outside the time it was in force.
    const store = new AuditStore({ ...auditPaths(home), readonly: true });
    const leaves = [...store.leafHashes()];
    const origin = `toolgate/${store.logId()}`;
    store.close();
    const latest = parseCheckpoint(openNote(readFileSync(join(folder, `${logId()}.checkpoint`), 'utf8'), readCheckpointKey(home)!.verifier));
    expect(latest.size).toBe(leaves.length);
    writeFileSync(join(folder, `${logId()}.000000000099.checkpoint`), signNote(formatCheckpoint({ origin, size: latest.size, root: latest.root }), old.name, old.privateKey));
    run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\.000000000099\.checkpoint check failed \(key-not-in-force\): .* over 12 records, but by the key history in .* that key signs only trees of 0 to 7 records/);
  });

  it('for a folder written before key histories, a lost key is rotated with --old-key and the old checkpoints stay verifiable', async () => {
    // An earlier gate wrote checkpoints with no key history beside them, under the key name gates gave then.
    const store = new AuditStore(auditPaths(home));
    mkdirSync(folder, { mode: 0o700 });
    const oldKey = createCheckpointKey(home, 'toolgate-vm-0a1b2c3d');
    const writer = new CheckpointWriter({ dir: folder, audit: store, key: oldKey, everyRecords: 3 });
    for (let i = 0; i < 7; i++) store.append({ callId: `call-${i}`, kind: 'invoked', payload: { step: i } });
    writer.close();
    store.close();
    rmSync(join(home, 'checkpoint-key'));
    expect(() => gateRun(1)).toThrow(/holds checkpoints of this log .* signed by toolgate-.*, but this gate's checkpoint key .* is gone/);
    let run = (await toolgate('audit', 'key', 'rotate', '--checkpoint-dir', folder));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('has no key history yet');
    expect(run.stderr).toContain('--old-key NAME+HASH+KEY');
    run = (await toolgate('audit', 'key', 'rotate', '--checkpoint-dir', folder, '--old-key', oldKey.verifierKey));
    expect(run.code).toBe(0);
    gateRun(2);
    run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`checkpoint ${logId()}\\.000000000006\\.checkpoint verified: .*the key before the key history in .* began`));
  });
});

describe('a gate start with a checkpoint folder', () => {
  it('is refused while the folder holds a checkpoint of this log signed by a key its history does not name, naming file and keys', async () => {
    gateRun(4);
    const key = readCheckpointKey(home)!;
    const stranger = generateKeyPairSync('ed25519').privateKey;
    const text = splitNote(readFileSync(join(folder, `${logId()}.checkpoint`), 'utf8')).text;
    const planted = join(folder, `${logId()}.000000000003.checkpoint`);
    writeFileSync(planted, signNote(text, 'toolgate-elsewhere-0badc0de', stranger));
    expect(() => gateRun(1)).toThrow(
      new RegExp(`holds checkpoints of this log signed by toolgate-elsewhere-0badc0de\\+[0-9a-f]{8} \\(e\\.g\\. ${planted.replace(/[.]/g, '\\.')}\\), a key its key history does not hold \\(it holds ${key.name}\\+`),
    );
    rmSync(planted);
    gateRun(1);
    expect((await toolgate('audit', 'verify', '--checkpoint-dir', folder)).code).toBe(0);
  });
});

describe('the key name', () => {
  /** The name on each signature of every note in the folder (checkpoints and key history entries), with the note's first line. */
  function signedNames(): Array<{ file: string; origin: string; names: string[] }> {
    return readdirSync(folder)
      .filter((name) => name.endsWith('.checkpoint') || name.endsWith('.note'))
      .map((name) => {
        const note = readFileSync(join(folder, name), 'utf8');
        return { file: name, origin: note.slice(0, note.indexOf('\n')), names: splitNote(note).signatures.map((signature) => signature.name) };
      });
  }

  it("is the log's origin, as C2SP tlog-checkpoint asks: every checkpoint and key entry is signed under the name its first line gives", async () => {
    // The key printed before the gate ever ran is the one it signs with.
    const printed = (await toolgate('audit', 'key')).stdout.trim();
    gateRun(7, 3);
    const origin = `toolgate/${logId()}`;
    expect(printed.split('+')[0]).toBe(origin);
    const notes = signedNames();
    expect(notes.length).toBeGreaterThan(3);
    for (const note of notes) expect(note).toEqual({ file: note.file, origin, names: [origin] });
    expect((await toolgate('audit', 'verify', '--checkpoint', join(folder, `${logId()}.checkpoint`), '--key', printed)).code).toBe(0);

    // A rotated-in key is named the same way, and the old and new checkpoints both verify.
    expect((await toolgate('audit', 'key', 'rotate', '--checkpoint-dir', folder)).code).toBe(0);
    gateRun(2);
    expect(readCheckpointKey(home)!.name).toBe(origin);
    expect((await toolgate('audit', 'verify', '--checkpoint-dir', folder)).code).toBe(0);
  });

  it('of a key made under the earlier name stays as it was: its checkpoints and key history verify, and the gate signs on under it', async () => {
    const legacy = 'toolgate-vm-0a1b2c3d';
    saveCheckpointKey(home, generateCheckpointKey(legacy));
    gateRun(6);
    gateRun(4);
    expect(new Set(signedNames().flatMap((note) => note.names))).toEqual(new Set([legacy]));
    const run = (await toolgate('audit', 'verify', '--checkpoint-dir', folder));
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/checkpoints of this log in .*: \d+ verified, 1 with nothing signed yet, 0 failed/);
    expect((await toolgate('audit', 'verify', '--checkpoint', join(folder, `${logId()}.checkpoint`), '--key', readCheckpointKey(home)!.verifierKey)).code).toBe(0);

    // Rotating brings in a key named by the origin; what the earlier name signed still verifies.
    expect((await toolgate('audit', 'key', 'rotate', '--checkpoint-dir', folder)).code).toBe(0);
    gateRun(1);
    expect(readCheckpointKey(home)!.name).toBe(`toolgate/${logId()}`);
    expect((await toolgate('audit', 'verify', '--checkpoint-dir', folder)).code).toBe(0);
  });
});

describe('the help', () => {
  it('lists audit key rotate and audit verify --checkpoint-dir', async () => {
    const key = (await toolgate('audit', 'key', '--help'));
    expect(key.code).toBe(0);
    expect(key.stdout).toContain('Usage: toolgate audit key [rotate] [options]');
    expect(key.stdout).toContain('--checkpoint-dir DIR');
    expect((await toolgate('--help')).stdout).toMatch(/audit key \[rotate\] +print the verifier key .* rotate records a new one/);
    expect((await toolgate('audit', 'verify', '--help')).stdout).toMatch(/--checkpoint-dir DIR +also check the log against every checkpoint of it in this folder/);
    const wrong = (await toolgate('audit', 'key', 'rotat'));
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('audit key takes nothing or `rotate`, not "rotat"');
  });
});
