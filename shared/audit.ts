import { z } from 'zod';

/** The steps of the pipeline that each write one audit record. */
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
]);
export type AuditKind = z.infer<typeof AuditKindSchema>;

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

/** The outcome of checking the whole chain. */
export const AuditVerifyReportSchema = z.object({
  /** True when every record links and hashes correctly and nothing is missing. */
  ok: z.boolean(),
  /** How many records were checked. */
  records: z.number().int().nonnegative(),
  /** The first seq that does not verify (absent when ok). */
  firstBadSeq: z.number().int().optional(),
  /** What is wrong at firstBadSeq (absent when ok). */
  reason: z.string().optional(),
});
export type AuditVerifyReport = z.infer<typeof AuditVerifyReportSchema>;
