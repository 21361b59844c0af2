import { statfsSync } from 'node:fs';
import type { PoolWorker } from './callSupervisor';
import { processTree } from './processTree';

/** What the gate read of a sandbox's own file systems before ending it. */
export interface SandboxRootView {
  /** Free bytes left in each size-capped scratch folder (/tmp, /dev/shm), by path inside the sandbox. */
  freeBytes: Record<string, number>;
}

/**
 * Reads how full the sandbox's own /tmp and /dev/shm are, through /proc/<init>/root of the
 * sandbox's init (the wrapper's first child), while it still lives: they vanish with it.
 */
export function viewSandboxRoot(worker: PoolWorker): SandboxRootView | undefined {
  const wrapper = worker.process.pid;
  if (wrapper === undefined || worker.exited) return undefined;
  const init = processTree(wrapper, 2)[1];
  if (init === undefined) return undefined;
  const freeBytes: Record<string, number> = {};
  for (const folder of ['/tmp', '/dev/shm']) {
    try {
      const stats = statfsSync(`/proc/${init}/root${folder}`);
      freeBytes[folder] = stats.bavail * stats.bsize;
    } catch {
      // Not readable (the process is gone): nothing to say about it.
    }
  }
  return { freeBytes };
}
