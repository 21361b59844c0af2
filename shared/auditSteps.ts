import { CallStepsPayloadSchema, STEPS_KINDS, type AuditRecord } from './audit';

const STEPS = new Set<string>(STEPS_KINDS);

/**
 * A record as the steps it holds, oldest first, each shown as a record of its step's kind (its
 * `seq`, `hash` and `prevHash` the record's, which anchor it in the chain): what a log of one record
 * per step held. A record of one step (an older log's, `interrupted`, `key-rotated`) is itself; a
 * record of several whose payload is not readable as steps stays itself, and readers pass over its kind.
 */
export function stepsOf(record: AuditRecord): AuditRecord[] {
  if (!STEPS.has(record.kind)) return [record];
  const parsed = CallStepsPayloadSchema.safeParse(record.payload);
  if (!parsed.success) return [record];
  return parsed.data.steps.map((step) => ({ ...record, kind: step.kind, time: step.time, payload: step.payload }));
}

/** Every step of these records, in order (see stepsOf). */
export function stepsOfAll(records: readonly AuditRecord[]): AuditRecord[] {
  return records.flatMap(stepsOf);
}
