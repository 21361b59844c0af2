import { PreviewSchema, type Preview } from '../../../shared/approval';
import type { ToolProcessPool } from '../../hosts/toolProcessPool';
import type { RegisteredTool } from '../../registry/registry';

/**
 * What the person sees before deciding: the tool's own dry run (a diff for file writes), computed in
 * a tool process like any tool code. A tool without a dry run, or one whose dry run fails, gets a
 * 'none' preview that says why.
 */
export async function preparePreview(
  pool: ToolProcessPool,
  entry: RegisteredTool,
  input: unknown,
  callId: string,
  workspace: string,
): Promise<Preview> {
  const { manifest } = entry.tool;
  if (!manifest.supportsDryRun) return { kind: 'none', reason: `${manifest.name} has no dry run; judge it by its arguments` };
  const outcome = await pool.run(
    { callId, tool: manifest.name, module: entry.module, input, context: { workspace, dryRun: true } },
    manifest.bounds.timeoutMs,
  );
  if (!outcome.ok) return { kind: 'none', reason: `the dry run failed: ${outcome.error.code}: ${outcome.error.message}` };
  const preview = PreviewSchema.safeParse(outcome.data);
  return preview.success ? preview.data : { kind: 'none', reason: 'the dry run returned no readable preview' };
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
