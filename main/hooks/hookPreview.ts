import { relative } from 'node:path';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { shellPreview } from '../tools/shell/shellPreview';
import { unifiedDiff } from '../tools/unifiedDiff';
import { isInside } from '../tools/workspacePath';
import type { EquivalentCall } from './claudeCodeTools';

/** A path as the prompt shows it: workspace-relative inside the workspace, absolute outside. */
function shownPath(path: string, workspace: string): string {
  return isInside(workspace, path) ? relative(workspace, path) || '.' : path;
}

/**
 * What a person sees before Claude Code's tool runs, made in the gate from the file on disk (the
 * tool runs in Claude Code, so there is no dry run to ask): the diff of a Write, Edit or MultiEdit,
 * the parsed command line of a Bash call, the request of a WebFetch, otherwise its arguments only.
 */
export async function hookPreview(call: EquivalentCall | undefined, workspace: string): Promise<Preview> {
  if (call?.change) {
    if ('unshown' in call.change) return { kind: 'none', reason: `no diff: ${call.change.unshown}` };
    const path = shownPath(call.change.path, workspace);
    const { before, after, exists } = call.change;
    return { kind: 'diff', path, before, after, unified: unifiedDiff(path, before, after), exists };
  }
  if (call?.command) {
    try {
      return await shellPreview(call.command.line, { workspace, cwd: call.command.cwd }, shownPath(call.command.cwd, workspace));
    } catch (error) {
      if (error instanceof GateError) return { kind: 'none', reason: `the command line cannot be read (${error.message}); judge it by its text` };
      throw error;
    }
  }
  if (call?.tool === 'http_fetch' && typeof call.input.url === 'string') {
    try {
      const url = new URL(call.input.url);
      return { kind: 'request', method: 'GET', url: url.href, host: url.host };
    } catch {
      return { kind: 'none', reason: `${JSON.stringify(call.input.url)} is not a URL` };
    }
  }
  return { kind: 'none', reason: 'Claude Code runs this tool itself; judge it by its arguments' };
}
