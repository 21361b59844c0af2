/**
 * The verdicts of a signed checkpoint on the audit log, reached in-process: a rewritten record (the
 * chain and head anchor recomputed to hide it) is named, a log cut back below the checkpoint is
 * caught, a checkpoint of another log or of nothing vouches for nothing, and a log that grew past
 * its checkpoint still verifies. `audit verify --checkpoint` through the CLI is in checkpointCli.test.ts.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditKind } from '../../shared/audit';
import { AuditStore } from '../../main/audit/auditStore';
import { checkAgainstCheckpoint, malformedCheckpoint } from '../../main/audit/checkpointCheck';
import { checkpointKeyForFolder } from '../../main/audit/checkpointKeyGuard';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { rewriteRecord as rewriteChain, writeCheckpointedLog } from './checkpointFixture';
import { auditPaths, tamper } from './auditFixture';

let root: string;
let home: string;
let folder: string;

const KINDS: AuditKind[] = ['invoked', 'policy', 'started', 'completed'];

beforeEach(() => {
  root = makeTempFolder();
  home = join(root, 'home');
  folder = join(root, 'checkpoints');
  mkdirSync(home);
});
afterEach(() => removeTempFolder(root));

/** A log with checkpoints written as a gate writes them; the newest checkpoint's path. */
function writeLog(count: number, every = 10): string {
  return writeCheckpointedLog({ root, home, folder }, count, every);
}

/** Appends records without a checkpoint writer: the log grows past its last checkpoint. */
function appendMore(count: number): void {
  const store = new AuditStore(auditPaths(home));
  for (let i = 0; i < count; i++) store.append({ callId: `later-${i}`, kind: 'invoked', payload: { step: `later ${i}` } });
  store.close();
}

/** Edits one record and re-hashes the chain and head anchor to match, as an attacker with the database would. */
function rewriteRecord(seq: number, payload: unknown): void {
  rewriteChain(home, seq, payload);
}

/** The checkpoint's verdict on the log as it now is, checked with the folder's own key. */
function check(checkpoint: string, note = readFileSync(checkpoint, 'utf8'), logHome = home) {
  const signed = new AuditStore({ ...auditPaths(home), readonly: true });
  const { key } = checkpointKeyForFolder(folder, signed.logId()!, home);
  signed.close();
  const store = new AuditStore({ ...auditPaths(logHome), readonly: true });
  try {
    return checkAgainstCheckpoint(store, note, checkpoint, key.verifier);
  } finally {
    store.close();
  }
}

const removeLeaves = () => rmSync(join(folder, readdirSync(folder).find((name) => name.endsWith('.leaves'))!));

describe('a signed checkpoint against the log', () => {
  it('vouches for the records it signed and for a log that grew past it', () => {
    const checkpoint = writeLog(25);
    expect(check(checkpoint)).toMatchObject({ ok: true, checkpointSize: 25, records: 25 });
    appendMore(7);
    expect(check(checkpoint)).toMatchObject({ ok: true, checkpointSize: 25, records: 32, reason: expect.stringContaining('records 1 to 25 are the ones signed') });
  });

  it('names the first rewritten record by the kept leaf hashes, even the first and the last signed one', () => {
    for (const seq of [1, 17, 40]) {
      rmSync(folder, { recursive: true, force: true });
      rmSync(home, { recursive: true, force: true });
      mkdirSync(home);
      const checkpoint = writeLog(40);
      rewriteRecord(seq, { step: 'nothing happened' });
      expect(check(checkpoint)).toMatchObject({ ok: false, problem: 'rewritten', firstBadSeq: seq, checkpointSize: 40, records: 40 });
    }
  });

  it('without the kept leaf hashes, still catches a rewrite and narrows it down by the older checkpoints', () => {
    const checkpoint = writeLog(40, 10);
    rewriteRecord(17, { step: 'nothing happened' });
    removeLeaves();
    const report = check(checkpoint);
    expect(report).toMatchObject({ ok: false, problem: 'rewritten', reason: expect.stringContaining('one of records 11 to 20') });
    expect(report.firstBadSeq).toBeUndefined();
  });

  it('without kept leaves, narrows a rewrite past every older checkpoint to the records after the last one', () => {
    const checkpoint = writeLog(40, 10);
    rewriteRecord(35, { step: 'nothing happened' });
    removeLeaves();
    expect(check(checkpoint)).toMatchObject({ ok: false, problem: 'rewritten', reason: expect.stringContaining('one of records 31 to 40') });
  });

  it('catches a log cut back below the checkpoint, naming the first record missing', () => {
    const checkpoint = writeLog(30);
    tamper(home, (db) => {
      db.prepare('DELETE FROM audit WHERE seq > 20').run();
    });
    expect(check(checkpoint)).toMatchObject({ ok: false, problem: 'truncated', firstBadSeq: 21, checkpointSize: 30, records: 20 });
    removeLeaves();
    expect(check(checkpoint)).toMatchObject({ ok: false, problem: 'truncated', firstBadSeq: 21 });
  });

  it('refuses a checkpoint of another log, and a checkpoint whose note was edited', () => {
    const checkpoint = writeLog(12);
    // Another state folder's log with the same records: the checkpoint is not about it.
    const otherHome = join(root, 'other');
    mkdirSync(otherHome);
    const other = new AuditStore(auditPaths(otherHome));
    for (let i = 0; i < 12; i++) other.append({ callId: `call-${Math.floor(i / 4)}`, kind: KINDS[i % 4]!, payload: { tool: 'write_file', arguments: { path: `src/f${i}.ts` }, step: i } });
    other.close();
    expect(check(checkpoint, undefined, otherHome)).toMatchObject({ ok: false, problem: 'other-log' });
    // The signed size edited by hand: the signature no longer holds.
    const lines = readFileSync(checkpoint, 'utf8').split('\n');
    lines[1] = '13';
    expect(check(checkpoint, lines.join('\n'))).toMatchObject({ ok: false });
  });

  it('reports a file that is not a checkpoint as malformed, and one that is as well-formed', () => {
    const checkpoint = writeLog(5);
    expect(malformedCheckpoint(readFileSync(checkpoint, 'utf8'), checkpoint)).toBeUndefined();
    expect(malformedCheckpoint('just some text\n', checkpoint)).toMatchObject({ ok: false, problem: 'malformed', reason: expect.stringContaining(checkpoint) });
  });
});
