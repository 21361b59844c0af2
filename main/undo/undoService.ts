import type { Capability } from '../../shared/manifest';
import { GateError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { CallEffects, UndoReport, UndoRequest } from '../../shared/effects';
import { countOf } from '../../shared/plural';
import type { AuditStore } from '../audit/auditStore';
import { CallRun } from '../executor/callRun';
import type { CallRedactions } from '../executor/callRedactions';
import type { CallTracker } from '../executor/callTracker';
import type { CallScheduler } from '../executor/scheduler';
import type { EffectsRecorder } from '../executor/steps/recordEffects';
import { applyUndo } from './undoApply';
import { planUndo, type PathPlan } from './undoPlan';
import { callEffects, laterCallsTouching, pathsOf, type CallWithEffects } from './recordedEffects';

/** What an undo needs of the gate. */
export interface UndoDeps {
  audit: AuditStore;
  calls: CallTracker;
  redactions: CallRedactions;
  scheduler: CallScheduler;
  recorder: EffectsRecorder;
  workspace: string;
  grants: readonly Capability[];
}

/** The tool name an undo is recorded under in the audit. */
export const UNDO_TOOL = 'undo';

/**
 * Undo and rewind, as a person asks for them from the console or the CLI. An undo is a call of its
 * own in the audit (decided by the person who asked), whose effects are recorded like any call's,
 * so undoing the undo is a redo. It takes the scheduler's exclusive turn: no call that changes files
 * runs between the check of each file and its write.
 */
export class UndoService {
  constructor(private readonly deps: UndoDeps) {}

  /** What a call changed, as its record says; ENOTFOUND for an unknown call, undefined when it recorded no effects. */
  effects(callId: string): CallEffects | undefined {
    const found = callEffects(this.deps.audit, callId);
    if (!found) throw unknownCall(callId);
    return found.effects;
  }

  /** Plans, and unless a dry run or a conflict stops it, applies the undo of a call (or the rewind to before it). */
  undo(request: UndoRequest): Promise<UndoReport> {
    const found = callEffects(this.deps.audit, request.callId);
    if (!found) return Promise.reject(unknownCall(request.callId));
    if (!found.effects || found.effects.effects.length === 0) {
      const why = found.effects ? 'it changed nothing in the workspace' : 'it recorded no changes to the workspace (its tool is not one whose effects are recorded, or it never ran)';
      return Promise.resolve({ outcome: 'nothing', reason: `nothing to undo for call ${request.callId}: ${why}`, calls: [], changes: [] });
    }
    const target: CallWithEffects = { callId: request.callId, seq: found.seq, effects: found.effects };
    return this.deps.scheduler.run({ tool: UNDO_TOOL, exclusive: true, maxConcurrent: 1 }, () => this.undoInTurn(request, target));
  }

  private async undoInTurn(request: UndoRequest, target: CallWithEffects): Promise<UndoReport> {
    const later = request.rewind
      ? laterCallsTouching(this.deps.audit, target.seq, new Set(target.effects.effects.flatMap(pathsOf))).filter((call) => call.callId !== target.callId)
      : [];
    const calls = [...later.reverse(), target];
    const ids = calls.map((call) => call.callId);
    const plan = planUndo({ workspace: this.deps.workspace, store: this.deps.recorder.store, grants: this.deps.grants }, calls, request.choices);
    const shown = (changes: PathPlan[]) => changes.map(({ image: _image, ...change }) => change);
    if (plan.refusal !== undefined) return { outcome: 'not-undoable', reason: `not undoable: ${plan.refusal}`, calls: ids, changes: shown(plan.changes) };
    if (plan.changes.length === 0) return { outcome: 'nothing', reason: 'nothing to undo: every file is already as it was before', calls: ids, changes: [] };
    const conflicts = plan.changes.filter((change) => change.conflict);
    if (conflicts.length > 0) {
      return {
        outcome: 'conflict',
        reason: `${countOf(conflicts.length, 'file')} changed since: ${conflicts.map((change) => change.path).join(', ')}. Nothing was written; choose per file to keep the current version or restore anyway`,
        calls: ids,
        changes: shown(plan.changes),
      };
    }
    const redacted = plan.changes.filter((change) => change.redacted).length;
    const note = redacted > 0 ? `; ${countOf(redacted, 'file')} put back with placeholders where secrets were (the store never keeps a secret)` : '';
    if (request.dryRun) return { outcome: 'planned', reason: `undoing would change ${countOf(plan.changes.length, 'path')}${note}`, calls: ids, changes: shown(plan.changes) };
    const undoCallId = await this.applyAsCall(request, ids, plan.changes);
    return { outcome: 'undone', reason: `undid ${countOf(ids.length, 'call')}: ${countOf(plan.changes.length, 'path')} put back${note}`, calls: ids, changes: shown(plan.changes), undoCallId };
  }

  /** Applies a plan as an audited call whose effects are recorded; answers its id. */
  private async applyAsCall(request: UndoRequest, ids: string[], changes: PathPlan[]): Promise<string> {
    const run = new CallRun(this.deps, UNDO_TOOL, 'console', undefined, undefined, true);
    const asked = `a person asked to ${request.rewind ? 'rewind to before' : 'undo'} call ${request.callId}`;
    run.begin(UNDO_TOOL, { callId: request.callId, rewind: request.rewind, choices: request.choices }, { undoOf: ids });
    run.audit('approval-decided', { outcome: 'approved', reason: asked });
    run.at('approval', { decidedBy: { by: 'person', detail: `approved: ${asked}` } });
    run.at('execute', { status: 'running' });
    run.startRunning();
    run.audit('started', { tool: UNDO_TOOL, undoOf: ids });
    await this.deps.audit.durable();
    const watch = this.deps.recorder.watchPaths(changes.map((change) => change.path));
    try {
      await applyUndo(this.deps.workspace, this.deps.recorder.store, changes);
    } catch (error) {
      run.effects = await watch.end();
      const message = error instanceof Error ? error.message : String(error);
      run.fail('failed', 'execute', { code: error instanceof GateError ? error.code : 'ERUNTIME', message: `the undo stopped part way: ${message}` });
      await this.deps.audit.durable();
      throw new GateError('ERUNTIME', `the undo stopped part way (call ${run.callId} records what it changed; undo that call to go back): ${message}`);
    }
    run.effects = await watch.end();
    const output = { undoneCalls: ids, paths: changes.map(({ path, action, redacted }) => ({ path, action, ...(redacted ? { redacted } : {}) })) };
    const responseHash = hashCanonical(output);
    run.audit('completed', { responseHash, durationMs: run.elapsedMs(), effects: run.effects, output });
    run.finish({ ok: true, data: output }, responseHash, 'completed', 'completed');
    await this.deps.audit.durable();
    return run.callId;
  }
}

function unknownCall(callId: string): GateError {
  return new GateError('ENOTFOUND', `no call ${JSON.stringify(callId)} in the audit log: copy a call id from the explorer or \`toolgate audit list\``);
}
