import type { AuditRecord } from '../../shared/audit';
import { stepsOf } from '../../shared/auditSteps';
import { CallEffectsSchema, type CallEffects, type Effect } from '../../shared/effects';
import type { AuditStore } from '../audit/auditStore';

/** A call with what it changed, as its audit record says. */
export interface CallWithEffects {
  callId: string;
  /** The seq of its first record: the order calls ran in. */
  seq: number;
  effects: CallEffects;
}

/** Records read back per page when looking through the log for later calls. */
const PAGE = 1000;

/** What a call's end record says it changed, or undefined when it recorded nothing (a tool whose effects are not recorded, a call that never ran). */
export function effectsOf(steps: readonly AuditRecord[]): CallEffects | undefined {
  for (const step of steps) {
    if (step.kind !== 'completed' && step.kind !== 'failed') continue;
    const parsed = CallEffectsSchema.safeParse((step.payload as { effects?: unknown } | null)?.effects);
    if (parsed.success) return parsed.data;
  }
  return undefined;
}

/** A call's effects by its id, or undefined when the log has no such call. */
export function callEffects(audit: Pick<AuditStore, 'forCall'>, callId: string): { seq: number; effects: CallEffects | undefined } | undefined {
  const steps = audit.forCall(callId);
  if (steps.length === 0) return undefined;
  return { seq: steps[0]!.seq, effects: effectsOf(steps) };
}

/** The workspace paths an effect touches (a rename, both). */
export function pathsOf(effect: Effect): string[] {
  return effect.from === undefined ? [effect.path] : [effect.from, effect.path];
}

/**
 * The calls after `seq` that touched any of `paths`, or a path a call taken in touched (a later
 * call that renamed a file onward is taken in with the file's new name), oldest first.
 */
export function laterCallsTouching(audit: Pick<AuditStore, 'list'>, seq: number, paths: ReadonlySet<string>): CallWithEffects[] {
  const ended = new Map<string, { seq: number; effects: CallEffects }>();
  let beforeSeq: number | undefined;
  for (;;) {
    const page = audit.list({ limit: PAGE, ...(beforeSeq !== undefined ? { beforeSeq } : {}) });
    for (const record of page) {
      if (record.seq <= seq) continue;
      const effects = effectsOf(stepsOf(record));
      if (effects) ended.set(record.callId, { seq: record.seq, effects });
    }
    const last = page.at(-1);
    if (!last || last.seq <= seq + 1 || page.length < PAGE) break;
    beforeSeq = last.seq;
  }
  const touched = new Set(paths);
  const taken: CallWithEffects[] = [];
  for (const [callId, { seq: endSeq, effects }] of [...ended].sort(([, a], [, b]) => a.seq - b.seq)) {
    const its = effects.effects.flatMap(pathsOf);
    if (!its.some((path) => touched.has(path))) continue;
    for (const path of its) touched.add(path);
    taken.push({ callId, seq: endSeq, effects });
  }
  return taken;
}

