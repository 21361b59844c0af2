import { useSyncExternalStore } from 'react';

/**
 * Prompts whose card holds an edit the person has not sent yet. "Approve all" would approve the
 * agent's call as it came, not the edit, so it waits until each of them is answered on its card.
 */
const editing = new Set<string>();
const listeners = new Set<() => void>();
let version = 0;

/** Marks a prompt as being edited on its card, or no longer. */
export function markEditing(approvalId: string, inProgress: boolean): void {
  if (editing.has(approvalId) === inProgress) return;
  if (inProgress) editing.add(approvalId);
  else editing.delete(approvalId);
  version++;
  for (const listener of listeners) listener();
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The prompts being edited now; the component draws again when that changes. */
export function useEditsInProgress(): ReadonlySet<string> {
  useSyncExternalStore(subscribe, () => version);
  return editing;
}
