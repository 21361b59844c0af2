import { useEffect, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import type { ApprovalRequest } from '../../../shared/approval';
import { KEY_GUARD_MS, keyMeaning, typedIntoField } from './approvalKeys';

/** The selected prompt and the `?` overlay, as the keys move and open them. */
export interface ApprovalKeys {
  readonly selectedId: string | undefined;
  /** Selects a prompt the person clicked or tabbed into. */
  select(approvalId: string): void;
  readonly helpOpen: boolean;
  setHelpOpen(open: boolean): void;
}

/**
 * The Approvals view's keys. They act on the selected prompt (the first shown until the person
 * moves), only while the view is shown, never while a field or Monaco has the focus, never from a
 * held-down key, and not at all for KEY_GUARD_MS after a prompt is selected, so a key meant for
 * the previous prompt cannot answer the one that slid into its place. `prompts` are in the order
 * shown; `reveal` scrolls one into view (the list is windowed, so it may not be drawn yet).
 */
export function useApprovalKeys(prompts: readonly ApprovalRequest[], viewRef: RefObject<HTMLElement | null>, reveal: (approvalId: string) => void): ApprovalKeys {
  const [chosenId, setChosenId] = useState<string>();
  const [helpOpen, setHelpOpen] = useState(false);
  const lastIndex = useRef(0);
  const chosenIndex = chosenId === undefined ? -1 : prompts.findIndex((request) => request.approvalId === chosenId);
  // When the chosen prompt is answered, the one that takes its place is selected.
  const index = chosenIndex !== -1 ? chosenIndex : Math.min(lastIndex.current, prompts.length - 1);
  const selectedId = index >= 0 ? prompts[index]?.approvalId : undefined;
  lastIndex.current = Math.max(0, index);

  // Set before the browser can deliver another key: a key that arrives with a new prompt selected
  // but the guard not yet restarted would otherwise answer it at once.
  const guard = useRef<{ id: string | undefined; since: number }>({ id: undefined, since: 0 });
  useLayoutEffect(() => {
    guard.current = { id: selectedId, since: performance.now() };
  }, [selectedId]);

  // After J/K the selected prompt takes the focus (screen readers read it), once it is drawn.
  const focusWanted = useRef<string | undefined>(undefined);
  useEffect(() => {
    const wanted = focusWanted.current;
    if (!wanted || wanted !== selectedId) return;
    const slot = viewRef.current?.querySelector<HTMLElement>(`[data-approval-slot="${CSS.escape(wanted)}"]`);
    if (!slot) return;
    focusWanted.current = undefined;
    slot.focus({ preventScroll: true });
  });

  const state = useRef({ prompts, index, selectedId, helpOpen });
  state.current = { prompts, index, selectedId, helpOpen };

  useEffect(() => {
    function onKeyDown(event: KeyboardEvent): void {
      const view = viewRef.current;
      if (!view || view.closest('[hidden]')) return;
      const { prompts: list, index: at, selectedId: id, helpOpen: open } = state.current;
      if (event.key === 'Escape') {
        if (open) setHelpOpen(false);
        // Esc leaves the reason (or any field of a prompt), so the keys work again; Monaco keeps its own Esc.
        else if (event.target instanceof HTMLElement && view.contains(event.target) && typedIntoField(event.target) && !event.target.closest('.monaco-editor')) {
          event.target.blur();
        }
        return;
      }
      if (typedIntoField(event.target)) return;
      const meaning = keyMeaning(event);
      if (!meaning) return;
      event.preventDefault();
      if (meaning === 'help') {
        if (!event.repeat) setHelpOpen(!open);
        return;
      }
      // While the list of keys is open, the keys only close it.
      if (open) return;
      if (meaning === 'next' || meaning === 'previous') {
        const next = list[Math.min(list.length - 1, Math.max(0, at + (meaning === 'next' ? 1 : -1)))];
        if (next) {
          setChosenId(next.approvalId);
          focusWanted.current = next.approvalId;
          reveal(next.approvalId);
        }
        return;
      }
      // A held key repeats: it must not answer the prompts that follow, one by one.
      if (event.repeat || !id || guard.current.id !== id || performance.now() - guard.current.since < KEY_GUARD_MS) return;
      const card = view.querySelector(`[data-approval-slot="${CSS.escape(id)}"]`);
      const control = card?.querySelector<HTMLElement>(`[data-key="${meaning}"]`);
      if (meaning === 'reason') control?.focus();
      else control?.click();
    }
    window.addEventListener('keydown', onKeyDown);
    return () => window.removeEventListener('keydown', onKeyDown);
  }, [viewRef, reveal]);

  return { selectedId, select: setChosenId, helpOpen, setHelpOpen };
}
