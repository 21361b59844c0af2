import { z } from 'zod';

/**
 * The kinds of audit records. A call's life is written as few records as its durability needs, each
 * holding its steps (see CallStepsPayload): `call` (the whole call), or `call-begun` … `call-ended`
 * with `call-step` records between. Logs written before hold one record per step, of the step kinds
 * (`invoked` … `completed`); both are read (shared/auditSteps.ts).
 */
export const AuditKindSchema = z.enum([
  'invoked',
  'rejected',
  'capability',
  'policy',
  'approval-requested',
  'approval-decided',
  'started',
  'completed',
  'failed',
  /** Written at start for a call the previous gate left without an end (it was killed or crashed). */
  'interrupted',
  /** A person accepted a log whose head anchor was missing (`toolgate audit verify --accept-missing-anchor`). */
  'anchor-accepted',
  /** A person brought in a new checkpoint signing key (`toolgate audit key rotate`); the key history in the checkpoint folder names this record. */
  'key-rotated',
  /** A whole call in one record, written once it ended: every step from `invoked` to its end. */
  'call',
  /** A call's first steps, written before it could go on: a tool with side effects about to run (write-ahead), a person asked. */
  'call-begun',
  /** Steps of a call begun earlier that must be in the log before it goes on: a person's decision, a write-ahead. */
  'call-step',
  /** The steps of a call begun earlier, to its end. */
  'call-ended',
]);
export type AuditKind = z.infer<typeof AuditKindSchema>;

/**
 * Kinds after which a call id gets no more records: the ends of a call, and `anchor-accepted` and
 * `key-rotated`, which stand alone. A call id with records but none of these is an open call.
 */
export const CLOSING_KINDS = ['completed', 'failed', 'rejected', 'interrupted', 'anchor-accepted', 'key-rotated', 'call', 'call-ended'] as const satisfies readonly AuditKind[];

/** Kinds of a call's first record: `invoked` in a log of one record per step, `call` or `call-begun` since. */
export const FIRST_KINDS = ['invoked', 'call', 'call-begun'] as const satisfies readonly AuditKind[];

/** Kinds of the records that hold several steps of a call. */
export const STEPS_KINDS = ['call', 'call-begun', 'call-step', 'call-ended'] as const satisfies readonly AuditKind[];

/** The kinds a step of a call has: the pipeline's steps, named as logs of one record per step named their records. */
export const StepKindSchema = z.enum(['invoked', 'capability', 'policy', 'approval-requested', 'approval-decided', 'started', 'completed', 'failed', 'rejected']);
export type StepKind = z.infer<typeof StepKindSchema>;

/** One step of a call as a record of several steps holds it. */
export const CallStepSchema = z.object({
  /** Which step of the pipeline. */
  kind: StepKindSchema,
  /** When it happened (ISO 8601, milliseconds). */
  time: z.string(),
  /** Milliseconds since the call was invoked, to the microsecond (the steps' timing finer than `time`). */
  atMs: z.number().nonnegative(),
  /** What the step decided or saw, as a record of one step held it. */
  payload: z.unknown(),
});
export type CallStep = z.infer<typeof CallStepSchema>;

/** The payload of a record of several steps (`call`, `call-begun`, `call-step`, `call-ended`). */
export const CallStepsPayloadSchema = z.object({ steps: z.array(CallStepSchema).min(1) });
export type CallStepsPayload = z.infer<typeof CallStepsPayloadSchema>;

/** The hash every chain starts from (the prevHash of seq 1). */
export const GENESIS_HASH = '0'.repeat(64);

/** One link of the hash-chained audit log. */
export const AuditRecordSchema = z.object({
  /** Position in the log, 1-based, without gaps. */
  seq: z.number().int().positive(),
  /** The call this record is about. */
  callId: z.string(),
  /** Which pipeline step wrote it. */
  kind: AuditKindSchema,
  /** When it was written (ISO 8601). */
  time: z.string(),
  /** What the step decided or saw; canonical JSON, secrets never included. */
  payload: z.unknown(),
  /** Hash of the previous record (GENESIS_HASH for seq 1). */
  prevHash: z.string(),
  /** BLAKE3(prevHash ‖ canonical JSON of { seq, callId, kind, time, payload }). */
  hash: z.string(),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

/** What kind of damage a failed check found, for scripts (`audit verify --json`). */
export const AuditProblemSchema = z.enum([
  /** A record is missing, out of order, unlinked or changed. */
  'chain',
  /** The database has records but the head anchor file is gone. */
  'anchor-missing',
  /** The head anchor file cannot be read or does not hold a seq and hash. */
  'anchor-unreadable',
  /** The anchor names a seq past the log's end: records were cut from it (or the database emptied or deleted). */
  'anchor-ahead',
  /** The record at the anchor's seq is not the one the gate wrote: the log was rewritten. */
  'anchor-mismatch',
  /** The database file cannot be opened or read as SQLite. */
  'database-unreadable',
]);
export type AuditProblem = z.infer<typeof AuditProblemSchema>;

/** A call with records but no closing one: still under way, or left open by a gate that stopped. */
export const OpenCallSchema = z.object({
  /** The call's id. */
  callId: z.string(),
  /** The seq of its newest record. */
  lastSeq: z.number().int().positive(),
  /** The step it had reached: its newest record's kind, or that record's last step. */
  lastKind: AuditKindSchema,
  /** When it reached that step. */
  lastTime: z.string(),
});
export type OpenCall = z.infer<typeof OpenCallSchema>;

/** The outcome of checking the whole chain. */
export const AuditVerifyReportSchema = z.object({
  /** True when every record links and hashes correctly and nothing is missing. */
  ok: z.boolean(),
  /** How many records were checked. */
  records: z.number().int().nonnegative(),
  /** The first seq that does not verify (absent when ok, or when the damage has no one seq). */
  firstBadSeq: z.number().int().optional(),
  /** What is wrong, and how to go on (absent when ok). */
  reason: z.string().optional(),
  /** What kind of damage was found (absent when ok). */
  problem: AuditProblemSchema.optional(),
  /** Calls with no closing record (present when the chain verified and there are any). */
  openCalls: z.array(OpenCallSchema).optional(),
});
export type AuditVerifyReport = z.infer<typeof AuditVerifyReportSchema>;
