/**
 * What a person is told when a gate starts on a log its head anchor disagrees with, reached
 * in-process through the store a gate opens: which log, what the anchor shows (a missing or damaged
 * anchor, a cut tail, a rewritten end, a deleted database), with the counts and seqs of this log,
 * and what to do next: accept a lost anchor, or move the damaged log aside to start a new one.
 * auditStartup.test.ts holds the refusals themselves (nothing written, the anchor left as it was).
 */
import { rmSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditAnchorError, ACCEPT_COMMAND } from '../../main/audit/anchorCheck';
import { AuditStore } from '../../main/audit/auditStore';
import { openDatabase } from '../../main/audit/sqlite';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, tamper, writeRecords } from './auditFixture';

let home: string;
let db: string;
let head: string;

beforeEach(() => {
  home = makeTempFolder();
  ({ path: db, headPath: head } = auditPaths(home));
  writeRecords(home, 10);
});
afterEach(() => removeTempFolder(home));

/** The message a gate starting on the log stops with. */
function refusalMessage(): string {
  try {
    new AuditStore(auditPaths(home)).close();
  } catch (error) {
    if (error instanceof AuditAnchorError) return error.message;
    throw error;
  }
  throw new Error('the store opened the damaged log for writing');
}

const refused = (finding: string) => `the audit log ${db} does not match its head anchor, so the gate will not add to it: ${finding}.`;
const START_OVER = ' To start a new log, move audit.db* and its .head file aside (keep them: they are the evidence).';
const SEE_VERIFY = ' See `toolgate audit verify`.';
const LOST_WAL =
  ' (or the database\'s -wal file was removed after the gate was killed, or the machine lost power while a gate with auditDurability "process" was writing, ' +
  'which can lose its last commits but keep the anchor)';

describe('a gate starting on a log whose anchor is lost', () => {
  it('a missing anchor: says how many records it would have guarded, why it goes missing, and how to accept the log', () => {
    rmSync(head);
    expect(refusalMessage()).toBe(
      refused(
        `the head anchor ${head} is missing, but the log has 10 records; without it, records cut from the log's end cannot be noticed. ` +
          'It goes missing when the state folder is cleaned or copied without it, or when someone cuts the log and removes the anchor to hide that. ' +
          `If you know why it is gone, accept the log as it is with \`${ACCEPT_COMMAND}\``,
      ) + SEE_VERIFY,
    );
  });

  it('a damaged anchor: says what it holds, to keep it, and how to accept the log', () => {
    writeFileSync(head, 'x');
    expect(refusalMessage()).toBe(
      refused(
        `the head anchor ${head} is damaged: it holds "x", not a seq and a hash. It holds the seq and hash of the last record the gate wrote; without it, records cut from the log's end cannot be noticed. ` +
          `Keep it for inspection (mv ${head} ${head}.damaged), then accept the log as it is with \`${ACCEPT_COMMAND}\``,
      ) + SEE_VERIFY,
    );
  });
});

describe('a gate starting on a log its anchor shows was cut or rewritten', () => {
  it('a cut tail: names where the log ends and where the gate wrote to, and says to start a new log', () => {
    tamper(home, (database) => database.prepare('DELETE FROM audit WHERE seq > 8').run());
    expect(refusalMessage()).toBe(refused(`the log ends at seq 8 but the gate wrote up to seq 10: records were cut from its end${LOST_WAL}`) + START_OVER + SEE_VERIFY);
  });

  it('an emptied database: says the database was replaced or emptied', () => {
    tamper(home, (database) => database.prepare('DELETE FROM audit').run());
    expect(refusalMessage()).toBe(refused(`the log has no records, but the head anchor says the gate wrote up to seq 10: the database was replaced or emptied${LOST_WAL}`) + START_OVER + SEE_VERIFY);
  });

  it('an anchor naming another hash: names the record and both hashes, and says the records up to it were rewritten', () => {
    const forged = '0'.repeat(64);
    writeFileSync(head, `${'9'.padStart(20, '0')} ${forged}\n`);
    const database = openDatabase(db);
    const { hash } = database.prepare('SELECT hash FROM audit WHERE seq = 9').get() as { hash: string };
    database.close();
    expect(refusalMessage()).toBe(
      refused(
        `record 9 is not the one the gate wrote last: the head anchor gives its hash as ${forged.slice(0, 16)}…, the log has ${hash.slice(0, 16)}…; ` +
          'the records up to it were rewritten (or the anchor was edited)',
      ) +
        START_OVER +
        SEE_VERIFY,
    );
  });

  it('a deleted database: names it, how many records the anchor says were written, and says to start a new log', () => {
    rmSync(db);
    expect(refusalMessage()).toBe(refused(`the audit database ${db} is missing, but the head anchor says the gate wrote 10 records: it was deleted or moved`) + START_OVER + SEE_VERIFY);
  });
});
