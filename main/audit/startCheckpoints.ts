import type { AuditStore } from './auditStore';
import { prepareCheckpointDir } from './checkpointFolder';
import { checkpointKeyForFolder } from './checkpointKeyGuard';
import { CheckpointWriter } from './checkpointWriter';

/** Where and how often a gate writes signed checkpoints of its audit log. */
export interface CheckpointOptions {
  /** The folder (`serve --checkpoint-dir`, `checkpointDir` in settings.json). */
  dir: string;
  /** Records between checkpoints (default 1000). */
  everyRecords?: number;
  /** Milliseconds between checkpoints while records come (default 60 s). */
  intervalMs?: number;
}

/**
 * Starts the checkpoint writer of a gate, making the signing key at first start. On a refusal
 * (a folder inside the state folder or workspace, a folder whose checkpoints another key signed, a
 * log that does not match its checkpoints) the audit log is closed and `onFailure` runs before the
 * error is thrown, so nothing stays open.
 */
export function startCheckpoints(
  options: CheckpointOptions | undefined,
  gate: { home: string; workspace: string; audit: AuditStore; onFailure: () => void; onWritten?: (note: string, verifierKey: string) => void },
): CheckpointWriter | undefined {
  if (!options) return undefined;
  try {
    const dir = prepareCheckpointDir(options.dir, gate);
    const logId = gate.audit.logId();
    if (!logId) throw new Error('the audit log has no id (it was opened read-only)');
    const { key, earlierKeys } = checkpointKeyForFolder(dir, logId, gate.home);
    return new CheckpointWriter({ dir, audit: gate.audit, key, earlierKeys, everyRecords: options.everyRecords, intervalMs: options.intervalMs, onWritten: gate.onWritten });
  } catch (error) {
    gate.audit.close();
    gate.onFailure();
    throw error;
  }
}
