import type { Effect, EntryState } from '../../shared/effects';
import { stateOnly, type Snapshot } from './snapshot';

/** Whether two states hold the same thing (type, content or target, and mode). */
export function sameState(a: EntryState | null, b: EntryState | null): boolean {
  if (a === null || b === null) return a === b;
  return a.type === b.type && a.mode === b.mode && a.hash === b.hash && a.target === b.target;
}

/** Whether two states differ only by their mode. */
function onlyModeDiffers(a: EntryState, b: EntryState): boolean {
  return a.type === b.type && a.hash === b.hash && a.target === b.target && a.mode !== b.mode;
}

/**
 * What changed between two snapshots of the same paths, one effect per path, ordered by path. A file
 * or symlink that vanished from one path and appeared at another with the same content is a rename
 * (paired one to one, so two copies of a deleted file make one rename and one creation).
 */
export function diffSnapshots(before: Snapshot, after: Snapshot): Effect[] {
  const effects: Effect[] = [];
  const deleted = new Map<string, string[]>();
  const created: Array<{ path: string; state: EntryState }> = [];
  for (const [path, entry] of before) {
    const now = after.get(path);
    // Most entries are unchanged: compared as scanned, copied only when they changed.
    if (now && sameState(entry, now)) continue;
    const was = stateOnly(entry);
    if (!now) {
      if (was.type !== 'dir') deleted.set(renameKey(was), [...(deleted.get(renameKey(was)) ?? []), path]);
      else effects.push({ path, kind: 'deleted', before: was, after: null });
      continue;
    }
    const is = stateOnly(now);
    const kind = was.type !== is.type ? 'type-changed' : onlyModeDiffers(was, is) ? 'mode-changed' : 'modified';
    effects.push({ path, kind, before: was, after: is });
  }
  for (const [path, entry] of after) if (!before.has(path)) created.push({ path, state: stateOnly(entry) });
  for (const { path, state } of created) {
    const sources = state.type === 'dir' ? undefined : deleted.get(renameKey(state));
    const from = sources?.shift();
    if (from !== undefined) effects.push({ path, kind: 'renamed', from, before: stateOnly(before.get(from)!), after: state });
    else effects.push({ path, kind: 'created', before: null, after: state });
  }
  for (const paths of deleted.values()) for (const path of paths) effects.push({ path, kind: 'deleted', before: stateOnly(before.get(path)!), after: null });
  return effects.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** What a rename keeps: the type and the content (or a symlink's target); the mode may change with it. */
function renameKey(state: EntryState): string {
  return `${state.type}\u0000${state.hash ?? ''}\u0000${state.target ?? ''}`;
}
