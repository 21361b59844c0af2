/**
 * What a person is told when the audit log is checked against a signed checkpoint: the record
 * counts and the first changed record in each verdict's words, the kind of a checkpoint that cannot
 * be read or was signed by another key, a checkpoint of nothing, one of another log or of a log
 * without an id, and which checkpoints beside it may narrow down a rewrite (only this log's, signed
 * by the key, and smaller than the one checked). checkpointVerdicts.test.ts holds the verdicts.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { formatCheckpoint, type Checkpoint } from '../../main/audit/checkpoint';
import { checkAgainstCheckpoint } from '../../main/audit/checkpointCheck';
import { generateCheckpointKey } from '../../main/audit/checkpointKey';
import { checkpointKeyForFolder } from '../../main/audit/checkpointKeyGuard';
import { checkpointFiles, checkpointOrigin } from '../../main/audit/checkpointWriter';
import { EMPTY_TREE_HASH } from '../../main/audit/merkle';
import { signNote } from '../../main/audit/signedNote';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, tamper } from './auditFixture';
import { rewriteRecord, writeCheckpointedLog } from './checkpointFixture';

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

/** The log's id and the folder's signing key, as the gate that wrote the checkpoints has them. */
function logAndKey() {
  const store = new AuditStore({ ...auditPaths(home), readonly: true });
  const logId = store.logId()!;
  store.close();
  return { logId, key: checkpointKeyForFolder(folder, logId, home).key };
}

/** The verdict on the log in `logHome` by the checkpoint text `note`, read as if from `file`, with the folder's key. */
function verdict(file: string, note = readFileSync(file, 'utf8'), logHome = home) {
  const { key } = logAndKey();
  const store = new AuditStore({ ...auditPaths(logHome), readonly: true });
  try {
    return checkAgainstCheckpoint(store, note, file, key.verifier);
  } finally {
    store.close();
  }
}

/** Appends records without a checkpoint writer: the log grows past its last checkpoint. */
function appendMore(count: number): void {
  const store = new AuditStore(auditPaths(home));
  for (let i = 0; i < count; i++) store.append({ callId: `later-${i}`, kind: 'invoked', payload: { step: `later ${i}` } });
  store.close();
}

/** A checkpoint note signed by the folder's own key over whatever it is given. */
function signedByFolderKey(checkpoint: Checkpoint): string {
  const { key } = logAndKey();
  return signNote(formatCheckpoint(checkpoint), key.name, key.privateKey);
}

const leavesOf = (logId: string) => checkpointFiles(folder, logId).leaves;
const REWRITTEN = { step: 'nothing happened' };

describe('a checkpoint the log still holds', () => {
  it('says which records were signed, by which key, and how many the log now holds', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 1, 1);
    const { key } = logAndKey();
    expect(verdict(checkpoint)).toMatchObject({
      ok: true,
      proofHashes: 0,
      reason: `records 1 to 1 are the ones signed (by ${key.name}), and the log's 1 record extends them (consistency proof of 0 hashes verified)`,
    });
    // From a tree of 1 to one of 2 the proof is the second leaf alone (RFC 9162 §2.1.4).
    appendMore(1);
    expect(verdict(checkpoint).reason).toBe(`records 1 to 1 are the ones signed (by ${key.name}), and the log's 2 records extend them (consistency proof of 1 hash verified)`);
  });
});

describe('a log changed below its checkpoint', () => {
  it('names the rewritten record by the kept leaf hashes, with the size of the checkpoint', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 40);
    rewriteRecord(home, 17, REWRITTEN);
    expect(verdict(checkpoint)).toMatchObject({
      problem: 'rewritten',
      firstBadSeq: 17,
      reason: 'record 17 is not the record the gate wrote and signed into the checkpoint of 40 records: the log was rewritten from there on (its chain and head anchor were recomputed to hide it)',
    });
  });

  it('names where a cut log ends and how many records the checkpoint signed', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 30);
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq > 20').run());
    expect(verdict(checkpoint)).toMatchObject({
      problem: 'truncated',
      firstBadSeq: 21,
      reason: 'the log holds 20 records but the checkpoint signed 30: records from 21 on were cut, or an older copy of the log was put back',
    });
  });

  it('without the kept leaf hashes, narrows the rewrite by the older checkpoints and says which file would name the record', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 40, 10);
    const { logId } = logAndKey();
    rewriteRecord(home, 17, REWRITTEN);
    rmSync(leavesOf(logId));
    expect(verdict(checkpoint).reason).toBe(
      "the log's first 40 records do not hash to the root the checkpoint signed: at least one of them was changed. " +
        'By the older checkpoints beside it, the first changed record is one of records 11 to 20. ' +
        `Keep the ${logId}.leaves file beside the checkpoint to have the first changed record named.`,
    );
  });

  it('without the kept leaf hashes nor an older checkpoint, claims no range and says which file would name the record', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 1, 1);
    const { logId } = logAndKey();
    rewriteRecord(home, 1, REWRITTEN);
    rmSync(leavesOf(logId));
    expect(verdict(checkpoint)).toMatchObject({
      problem: 'rewritten',
      reason: `the log's first 1 record does not hash to the root the checkpoint signed: at least one of them was changed. Keep the ${logId}.leaves file beside the checkpoint to have the first changed record named.`,
    });
  });
});

describe('the checkpoints beside it that narrow down a rewrite', () => {
  it('leave out a checkpoint the same key signed for another log, even under this log’s file name', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 40, 10);
    const { logId } = logAndKey();
    // Had it counted, its root (not this log's) would put the change in records 11 to 15.
    const otherLog = signedByFolderKey({ origin: checkpointOrigin('f'.repeat(32)), size: 15, root: randomBytes(32) });
    writeFileSync(checkpointFiles(folder, logId).numbered(15), otherLog);
    rewriteRecord(home, 17, REWRITTEN);
    rmSync(leavesOf(logId));
    expect(verdict(checkpoint).reason).toContain('the first changed record is one of records 11 to 20.');
  });

  it('leave out the checkpoints larger than the one checked, which the change also fails', () => {
    writeCheckpointedLog({ root, home, folder }, 40, 10);
    const { logId } = logAndKey();
    // The checkpoint of 20 records kept under a name of its own, its numbered copy gone: only 10 is older.
    const kept = join(folder, 'kept-at-20.checkpoint');
    copyFileSync(checkpointFiles(folder, logId).numbered(20), kept);
    rmSync(checkpointFiles(folder, logId).numbered(20));
    rewriteRecord(home, 17, REWRITTEN);
    rmSync(leavesOf(logId));
    expect(verdict(kept)).toMatchObject({
      problem: 'rewritten',
      checkpointSize: 20,
      reason: expect.stringContaining('the first changed record is one of records 11 to 20.'),
    });
  });
});

describe('a checkpoint that vouches for nothing here', () => {
  it('one that cannot be read, one signed by another key and one edited after signing: each told apart, naming the file', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 12);
    const note = readFileSync(checkpoint, 'utf8');
    const { logId } = logAndKey();

    const unreadable = verdict(checkpoint, 'just some text\n');
    expect(unreadable).toMatchObject({ ok: false, problem: 'malformed' });
    expect(unreadable.reason).toMatch(new RegExp(`^${checkpoint.replace(/[.\\/]/g, '\\$&')} it has no blank line`));

    const stranger = generateCheckpointKey(checkpointOrigin(logId));
    const text = note.slice(0, note.indexOf('\n\n') + 1);
    const otherKey = verdict(checkpoint, signNote(text, stranger.name, stranger.privateKey));
    expect(otherKey).toMatchObject({ ok: false, problem: 'other-key' });
    expect(otherKey.reason.startsWith(`${checkpoint} it is signed by ${stranger.name}+`)).toBe(true);

    const lines = note.split('\n');
    lines[1] = '11';
    expect(verdict(checkpoint, lines.join('\n'))).toMatchObject({ ok: false, problem: 'bad-signature', reason: expect.stringMatching(/does not match its text/) });
  });

  it('one signed over no records: nothing signed yet, however many the log holds', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 12);
    const { logId } = logAndKey();
    const empty = signedByFolderKey({ origin: checkpointOrigin(logId), size: 0, root: EMPTY_TREE_HASH });
    expect(verdict(checkpoint, empty)).toEqual({
      ok: false,
      problem: 'nothing-signed',
      checkpointSize: 0,
      records: 12,
      reason: `nothing signed yet: ${checkpoint} signs a tree of 0 records (written before the log had any), so it vouches for none of the log's 12 records`,
    });
  });

  it('one of another log: names both logs, or says this one has no id', () => {
    const checkpoint = writeCheckpointedLog({ root, home, folder }, 12);
    const { logId } = logAndKey();
    const other = 'e'.repeat(32);
    const note = signedByFolderKey({ origin: checkpointOrigin(other), size: 12, root: randomBytes(32) });
    expect(verdict(checkpoint, note)).toMatchObject({
      problem: 'other-log',
      checkpointSize: 12,
      reason: `${checkpoint} is a checkpoint of the log toolgate/${other}, but this audit log is toolgate/${logId}: it belongs to another state folder, or this log's id was changed`,
    });

    // A log written before logs had ids (the better-sqlite3 store's), checked against this log's checkpoint.
    const legacyHome = join(root, 'legacy');
    mkdirSync(legacyHome);
    for (const name of ['audit.db', 'audit.head']) copyFileSync(join(resolve(__dirname, '../fixtures/legacyAudit'), name), join(legacyHome, name));
    expect(verdict(checkpoint, undefined, legacyHome)).toMatchObject({
      problem: 'other-log',
      reason: `${checkpoint} is a checkpoint of the log toolgate/${logId}, but this audit log is one without an id (written before checkpoints existed): it belongs to another state folder, or this log's id was changed`,
    });
  });
});
