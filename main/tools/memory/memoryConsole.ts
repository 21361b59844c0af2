import { GateError } from '../../../shared/errors';
import { hashCanonical } from '../../../shared/hash';
import { MAX_NOTES_SHOWN, type MemoryPage, type MemoryQuery } from '../../../shared/memory';
import { CallRun } from '../../executor/callRun';
import type { ExecutorDeps } from '../../executor/executorDeps';
import type { NoteStore } from './noteStore';

/**
 * The console's Memory view: the notes listed or searched, and a person's delete of one, which is
 * recorded in the audit log as a call of memory_delete from the console (the person's own decision
 * recorded as its approval), so the log says who removed what an agent kept.
 */
export class MemoryConsole {
  constructor(
    private readonly store: NoteStore,
    private readonly deps: Pick<ExecutorDeps, 'audit' | 'calls' | 'redactions'>,
  ) {}

  /** The notes matching the query (best first), or the newest; only those carrying the tag, when one is given. */
  notes(request: MemoryQuery): MemoryPage {
    const tags = request.tag ? [request.tag] : [];
    const query = request.query?.trim() ?? '';
    const notes = query === '' ? this.store.list(tags, MAX_NOTES_SHOWN) : this.store.search(query, tags, MAX_NOTES_SHOWN);
    return { notes, total: this.store.count() };
  }

  /** Deletes a note as a person's audited call; ENOTFOUND when there is no such note. */
  async delete(id: number): Promise<{ deleted: boolean; callId: string }> {
    if (!this.store.get(id)) throw new GateError('ENOTFOUND', `there is no note ${id}: another agent or person may have deleted it; reload the Memory view`);
    const run = new CallRun(this.deps, 'memory_delete', 'console', undefined, undefined, true);
    const asked = `a person deleted note ${id} in the console's Memory view`;
    run.begin('memory_delete', { id });
    run.audit('approval-decided', { outcome: 'approved', reason: asked });
    run.at('approval', { decidedBy: { by: 'person', detail: `approved: ${asked}` } });
    run.at('execute', { status: 'running' });
    run.startRunning();
    run.audit('started', { tool: 'memory_delete', version: '1.0.0', inGate: true });
    // Its record first: a gate stopped mid-way leaves the delete open in the log, never unrecorded.
    await this.deps.audit.durable();
    const deleted = this.store.delete(id);
    const output = deleted ? { deleted: this.deps.redactions.redactValue(deleted) } : { deleted: null };
    const responseHash = hashCanonical(output);
    run.audit('completed', { responseHash, durationMs: run.elapsedMs(), output });
    run.finish({ ok: true, data: output }, responseHash, 'completed', 'completed');
    await this.deps.audit.durable();
    return { deleted: deleted !== undefined, callId: run.callId };
  }
}
