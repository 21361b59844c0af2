import type { ToolManifest } from '../../shared/manifest';
import type { EffectsRecorder } from '../executor/steps/recordEffects';
import type { EquivalentCall } from './claudeCodeTools';

/** What a Bash call Claude Code runs on the host changes that cannot be undone: the workspace is scanned, the rest of the machine and the network are not. */
const HOST_BASH_EXCEPT = "what it changes outside the workspace or sends over the network (Claude Code runs it on the host, outside Toolgate's sandbox)";

/**
 * What a prompt raised through Claude Code's hook says of undoing the call, as the gate's own prompts
 * do: its Write, Edit and MultiEdit are judged as the file tool they stand for, with the same path;
 * its Bash as shell_exec (run in the gate's sandbox) or, run on the host, undoable only in the
 * workspace. A path outside the workspace is not recorded, and a tool the gate knows nothing of
 * records nothing. Absent when the recorder is off or the call changes nothing.
 */
export function hookUndoability(
  recorder: EffectsRecorder | undefined,
  call: EquivalentCall | undefined,
  manifest: ToolManifest | undefined,
  options: { toolName: string; bashOnHost: boolean; outside: (path: string) => boolean },
): { undoable?: string } {
  if (!recorder) return {};
  if (!call || !manifest) return { undoable: `not undoable: Toolgate does not record what Claude Code's ${options.toolName} changes` };
  if (call.change !== undefined) {
    const outside = call.paths.find(options.outside);
    if (outside !== undefined) return { undoable: `not undoable: ${outside} is outside the workspace, where changes are not recorded` };
  }
  const said = recorder.undoability(manifest, call.input, false);
  if (said === undefined) return {};
  if (call.command && options.bashOnHost && said.startsWith('undoable')) return { undoable: said === 'undoable' ? `undoable except: ${HOST_BASH_EXCEPT}` : `${said}, and ${HOST_BASH_EXCEPT}` };
  return { undoable: said };
}
