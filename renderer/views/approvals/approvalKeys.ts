/** Keys ignore a prompt for this long after it appears or is moved to, so a key meant for the last one cannot answer it. */
export const KEY_GUARD_MS = 350;

/** What a key does on the selected prompt, by the `data-key` of the control it presses or focuses. */
export type PromptAction = 'approve' | 'session' | 'timed' | 'always' | 'deny' | 'reason' | 'edit';

/** Every key of the Approvals view, as the `?` overlay lists them. */
export const APPROVAL_KEYS: ReadonlyArray<{ keys: string; does: string }> = [
  { keys: 'A', does: 'Approve (this call only)' },
  { keys: 'S', does: 'Approve for this session… (opens the rule)' },
  { keys: 'T', does: 'Allow for… (15 min, 1 hour, until the gate stops)' },
  { keys: 'Shift+A', does: 'Always allow… (user or project policy)' },
  { keys: 'D', does: 'Deny (with the reason typed, if any)' },
  { keys: 'R', does: 'Focus the reason' },
  { keys: 'E', does: 'Edit the arguments (open or close the editor)' },
  { keys: 'J or ↓', does: 'Next prompt' },
  { keys: 'K or ↑', does: 'Previous prompt' },
  { keys: '?', does: 'Show or hide this list' },
  { keys: 'Esc', does: 'Leave a field, or close this list' },
];

/** What a key press means in the Approvals view, or undefined when it means nothing there. */
export function keyMeaning(event: Pick<KeyboardEvent, 'key' | 'shiftKey' | 'ctrlKey' | 'metaKey' | 'altKey'>): PromptAction | 'next' | 'previous' | 'help' | undefined {
  if (event.ctrlKey || event.metaKey || event.altKey) return undefined;
  if (event.key === '?') return 'help';
  if (event.key === 'ArrowDown' || event.key === 'j') return 'next';
  if (event.key === 'ArrowUp' || event.key === 'k') return 'previous';
  // "Always" takes a modifier: a lone A approves once, never for good.
  if (event.key === 'A' && event.shiftKey) return 'always';
  if (event.shiftKey) return undefined;
  return ({ a: 'approve', s: 'session', t: 'timed', d: 'deny', r: 'reason', e: 'edit' } as const)[event.key as 'a'];
}

/** Whether the key was typed into something that takes text (a field, Monaco): then it is text, not a command. */
export function typedIntoField(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || target.closest('input, textarea, select, .monaco-editor, [role="textbox"]') !== null;
}
