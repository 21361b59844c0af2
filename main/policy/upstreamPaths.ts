import type { ToolManifest } from '../../shared/manifest';
import { GateError } from '../../shared/errors';
import type { PathReach } from './callParts';
import { callAccesses, resolvePath, type PathAnchors } from './pathRule';

/**
 * The paths an upstream tool classed as reading or writing files is handed, so that a deny or ask
 * on a path (`read_file(secret/**)`) holds a filesystem server's `read_text_file` of the same file.
 * The gate cannot know which argument a server reads as a path, so every string that looks like
 * one counts, at any depth, reaching below it (a server's tool may walk a folder): fail-closed for
 * deny and ask, never a reason to allow. A relative path is judged in the workspace.
 */

/** Strings looked at in one call's arguments at most (past it the rest is not judged as paths). */
const MAX_STRINGS = 500;
/** How deep arguments are walked. */
const MAX_DEPTH = 8;

/** Whether a string reads as a file path (not a URL, not prose). */
function pathLike(text: string): boolean {
  if (text.length === 0 || text.length > 4096 || /^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return false;
  return /^(\/|~|\.\.?(\/|$))/.test(text) || (text.includes('/') && !/\s/.test(text));
}

function strings(value: unknown, found: string[], depth: number): void {
  if (found.length >= MAX_STRINGS || depth > MAX_DEPTH) return;
  if (typeof value === 'string') found.push(value);
  else if (Array.isArray(value)) for (const item of value) strings(item, found, depth + 1);
  else if (typeof value === 'object' && value !== null) for (const item of Object.values(value)) strings(item, found, depth + 1);
}

/** The path-like arguments of an upstream tool that reads or writes files, as reaches for deny and ask rules. */
export function upstreamPathReaches(manifest: ToolManifest, args: Readonly<Record<string, unknown>>, anchors: PathAnchors): PathReach[] {
  const accesses = callAccesses(manifest);
  if (accesses.length === 0) return [];
  const found: string[] = [];
  strings(args, found, 0);
  return found.filter(pathLike).map((written) => {
    try {
      return { accesses, written, paths: [resolvePath(written, anchors.workspace, anchors)], below: true };
    } catch (error) {
      if (!(error instanceof GateError)) throw error;
      return { accesses, written, paths: [], below: true, unknown: error.message };
    }
  });
}
