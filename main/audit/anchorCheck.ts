import { basename } from 'node:path';
import type { AuditProblem } from '../../shared/audit';
import { GateError } from '../../shared/errors';
import { countOf } from '../../shared/plural';
import type { AnchorState } from './headAnchor';

/** Damage that the head anchor shows: what kind, where (when there is one seq), and what to do. */
export interface AnchorFinding {
  problem: AuditProblem;
  reason: string;
  firstBadSeq?: number;
}

/** What the anchor is compared with: the log's newest seq and a way to read one record's hash. */
export interface LogEnd {
  lastSeq: number;
  hashAt: (seq: number) => string | undefined;
}

/** The other way a log loses its newest records: they live in the -wal file until SQLite checkpoints them. */
const LOST_WAL =
  " (or the database's -wal file was removed after the gate was killed, or the machine lost power while a gate with auditDurability \"process\" was writing, " +
  'which can lose its last commits but keep the anchor)';

/** The command that accepts a log whose anchor is gone, named in every message that needs it. */
export const ACCEPT_COMMAND = 'toolgate audit verify --accept-missing-anchor';

/**
 * Compares the head anchor with the end of a log. An anchor behind the log is fine (the gate
 * stopped between writing a record and its anchor); one ahead, or naming another hash, is not;
 * a missing anchor is a failure as soon as there are records, because it is what shows a cut tail.
 */
export function anchorFinding(anchor: AnchorState, log: LogEnd, headPath: string): AnchorFinding | undefined {
  if (anchor.state === 'absent') {
    if (log.lastSeq === 0) return undefined;
    return {
      problem: 'anchor-missing',
      reason:
        `the head anchor ${headPath} is missing, but the log has ${countOf(log.lastSeq, 'record')}; without it, records cut from the log's end cannot be noticed. ` +
        `It goes missing when the state folder is cleaned or copied without it, or when someone cuts the log and removes the anchor to hide that. ` +
        `If you know why it is gone, accept the log as it is with \`${ACCEPT_COMMAND}\``,
    };
  }
  if (anchor.state === 'unreadable') {
    // Earlier gates created the anchor empty and wrote it with their first record: nothing was lost.
    if (anchor.empty && log.lastSeq === 0) return undefined;
    return {
      problem: 'anchor-unreadable',
      reason:
        `the head anchor ${headPath} is damaged: ${anchor.why}. It holds the seq and hash of the last record the gate wrote; without it, records cut from the log's end cannot be noticed. ` +
        `Keep it for inspection (mv ${headPath} ${headPath}.damaged), then accept the log as it is with \`${ACCEPT_COMMAND}\``,
    };
  }
  const { head } = anchor;
  if (head.seq > log.lastSeq) {
    return {
      problem: 'anchor-ahead',
      firstBadSeq: log.lastSeq + 1,
      reason:
        log.lastSeq === 0
          ? `the log has no records, but the head anchor says the gate wrote up to seq ${head.seq}: the database was replaced or emptied${LOST_WAL}`
          : `the log ends at seq ${log.lastSeq} but the gate wrote up to seq ${head.seq}: records were cut from its end${LOST_WAL}`,
    };
  }
  if (head.seq === 0) return undefined;
  const hash = log.hashAt(head.seq);
  if (hash === head.hash) return undefined;
  return {
    problem: 'anchor-mismatch',
    firstBadSeq: head.seq,
    reason:
      `record ${head.seq} is not the one the gate wrote last: the head anchor gives its hash as ${head.hash.slice(0, 16)}…, the log has ${String(hash).slice(0, 16)}…; ` +
      `the records up to it were rewritten (or the anchor was edited)`,
  };
}

/** The finding for a database file that is gone while its anchor says records were written. */
export function missingDatabaseFinding(anchor: AnchorState, databasePath: string): AnchorFinding | undefined {
  if (anchor.state !== 'present' || anchor.head.seq === 0) return undefined;
  return {
    problem: 'anchor-ahead',
    firstBadSeq: 1,
    reason: `the audit database ${databasePath} is missing, but the head anchor says the gate wrote ${countOf(anchor.head.seq, 'record')}: it was deleted or moved`,
  };
}

/** Thrown when a gate would write to a log whose anchor shows damage: writing would overwrite the evidence. */
export class AuditAnchorError extends GateError {
  constructor(
    readonly finding: AnchorFinding,
    databasePath: string,
  ) {
    const next =
      finding.problem === 'anchor-missing' || finding.problem === 'anchor-unreadable'
        ? ''
        : ` To start a new log, move ${basename(databasePath)}* and its .head file aside (keep them: they are the evidence).`;
    super(
      'EPERMISSION',
      `the audit log ${databasePath} does not match its head anchor, so the gate will not add to it: ${finding.reason}.${next} ` +
        'See `toolgate audit verify`.',
      { problem: finding.problem },
    );
    this.name = 'AuditAnchorError';
  }
}

/** Throws the finding, if there is one, as the reason the log at `databasePath` cannot be written. */
export function refuseAnchorDamage(finding: AnchorFinding | undefined, databasePath: string): void {
  if (finding) throw new AuditAnchorError(finding, databasePath);
}
