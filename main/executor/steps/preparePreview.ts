import { PreviewSchema, type Preview } from '../../../shared/approval';
import { profileFor } from '../../hosts/sandbox';
import type { ToolProcessPool } from '../../hosts/toolProcessPool';
import type { RegisteredTool } from '../../registry/registry';
import type { ResolvedSecret } from '../../secrets/placeholders';
import { StepFailure } from './stepFailure';

/**
 * What the person sees before deciding: the tool's own dry run (a diff for file writes), computed in
 * a tool process like any tool code. A tool without a dry run gets a 'none' preview that says so.
 * A dry run that fails refuses the call there and then: nobody is asked to approve a change that
 * cannot be shown (a directory as the target, a file that is not text, a preview that timed out).
 */
export async function preparePreview(
  pool: ToolProcessPool,
  entry: RegisteredTool,
  input: unknown,
  callId: string,
  workspace: string,
  /** Secrets the dry run matches files without (see CallRedactions.hiddenFrom). */
  hiddenSecrets: readonly ResolvedSecret[] = [],
): Promise<Preview | StepFailure> {
  const { manifest } = entry.tool;
  // The call runs in its own profile once approved: its sandbox starts while the person reads the prompt.
  pool.expect(profileFor(manifest.sideEffects, false));
  if (!manifest.supportsDryRun) return { kind: 'none', reason: `${manifest.name} has no dry run; judge it by its arguments` };
  const outcome = await pool.run(
    { callId, tool: manifest.name, module: entry.module, input, context: { workspace, dryRun: true, ...(hiddenSecrets.length > 0 ? { hiddenSecrets: [...hiddenSecrets] } : {}) } },
    { timeoutMs: manifest.bounds.timeoutMs, maxMemoryMb: manifest.bounds.maxMemoryMb },
    // A dry run never gets a writable workspace, whatever the tool declares.
    profileFor(manifest.sideEffects, true),
  );
  if (!outcome.ok) {
    return new StepFailure('preview', { ...outcome.error, message: `its preview (dry run) failed, so nobody was asked: ${outcome.error.message}` });
  }
  const preview = PreviewSchema.safeParse(outcome.data);
  return preview.success ? preview.data : StepFailure.of('preview', 'ERUNTIME', `${manifest.name}'s dry run returned no readable preview`);
}

/** Lines added and removed in a unified diff, for the audit and the prompt's summary. */
export function countDiffLines(unified: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const line of unified.split('\n')) {
    if (line.startsWith('+') && !line.startsWith('+++')) added++;
    else if (line.startsWith('-') && !line.startsWith('---')) removed++;
  }
  return { added, removed };
}
