import type { PoolWorker } from './callSupervisor';
import type { CallLimits, Isolation } from './toolCall';

/** Calls one process serves at once when they may share it (CallLimits.mayShare). */
export const MAX_SHARED_CALLS = 8;

/**
 * The memory bound a call shares its process under, or undefined when it runs in one of its own:
 * only a call that starts nothing and may share (mayShareProcess), and never in a single-use sandbox.
 */
export function sharedBound(limits: CallLimits, isolation: Isolation): number | undefined {
  return limits.mayShare === true && limits.startsNothing === true && !isolation.singleUse ? limits.maxMemoryMb : undefined;
}

/**
 * A process serving calls that share it, of this isolation and memory bound, with room for one
 * more: the one serving most, so calls gather in few processes and each wakes for several. Only a
 * process that said it is ready and never ran other code than the gate's own is joined.
 */
export function sharedWith(workers: Iterable<PoolWorker>, key: string, maxMemoryMb: number): PoolWorker | undefined {
  let best: PoolWorker | undefined;
  for (const worker of workers) {
    if (worker.sharedBy !== maxMemoryMb || worker.isolation.key !== key || !worker.started || worker.retired || worker.exited || worker.ranOtherCode) continue;
    if (worker.calls > 0 && worker.calls < MAX_SHARED_CALLS && (!best || worker.calls > best.calls)) best = worker;
  }
  return best;
}

/** One more call in a process that serves others: its usage is no longer any one call's (callSupervisor). */
export function joinShared(worker: PoolWorker): void {
  worker.calls++;
  worker.joins++;
}
