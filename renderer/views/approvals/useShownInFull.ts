import { useEffect, useRef, useState, type RefObject } from 'react';
import type { ApprovalRequest } from '../../../shared/approval';
import { EDITOR_MAX_HEIGHT_PX } from './diffEditorOptions';
import { argumentsCut, HELD_BACK_SELECTOR, recordSight, seenWhole, type Sighting } from './sightings';

/** How often the drawn cards are looked at besides on scroll (a preview opened, an editor laid out). */
const LOOK_INTERVAL_MS = 250;

/** Whether a card keeps part of its call from view now: a folded or summarised part, or a diff taller than its editor with the unified diff closed. */
function holdsBack(card: Element): boolean {
  if (card.querySelector(HELD_BACK_SELECTOR)) return true;
  const clipped = [...card.querySelectorAll<HTMLElement>('.diff-editor')].some((editor) => editor.getBoundingClientRect().height >= EDITOR_MAX_HEIGHT_PX);
  return clipped && card.querySelector('details.unified-diff[open]') === null;
}

/**
 * Which prompts have been shown in full to the person: each card had every part of it inside the
 * list's visible frame at some moment while the page was visible, with nothing folded or
 * summarised (unless the person opened it) and its arguments not cut by the gate. A card whose
 * height changes is seen anew. Once shown in full, a prompt stays so until it resolves.
 */
export function useShownInFull(scrollRef: RefObject<HTMLElement | null>, prompts: readonly ApprovalRequest[]): ReadonlySet<string> {
  const [shown, setShown] = useState<ReadonlySet<string>>(() => new Set());
  const sightings = useRef(new Map<string, Sighting>());
  const byId = useRef(new Map<string, ApprovalRequest>());
  byId.current = new Map(prompts.map((request) => [request.approvalId, request]));
  const shownNow = useRef(shown);
  shownNow.current = shown;

  // Resolved prompts are forgotten.
  useEffect(() => {
    for (const id of sightings.current.keys()) if (!byId.current.has(id)) sightings.current.delete(id);
    if ([...shownNow.current].some((id) => !byId.current.has(id))) setShown((before) => new Set([...before].filter((id) => byId.current.has(id))));
  }, [prompts]);

  // Looked at after every render (a card drawn, a preview opened), on every scroll, and now and then.
  const look = useRef(() => {});
  look.current = () => {
    const list = scrollRef.current;
    if (!list || document.visibilityState !== 'visible') return;
    // The list's frame, cut to the window (a part below its edge was not in view); a pinned group header covers the top of the list.
    const box = list.getBoundingClientRect();
    const pinned = list.querySelector('.agent-slot-pinned')?.getBoundingClientRect().bottom ?? box.top;
    const frame = { top: Math.max(box.top, pinned, 0), bottom: Math.min(box.bottom, window.innerHeight) };
    if (frame.bottom <= frame.top) return;
    const added: string[] = [];
    for (const card of list.querySelectorAll<HTMLElement>('.approval-card[data-approval-id]')) {
      const id = card.dataset.approvalId!;
      const request = byId.current.get(id);
      if (!request || shownNow.current.has(id)) continue;
      const place = card.getBoundingClientRect();
      const sighting = recordSight(sightings.current.get(id), place.height, frame.top - place.top, frame.bottom - place.top);
      sightings.current.set(id, sighting);
      if (seenWhole(sighting) && !holdsBack(card) && !argumentsCut(request.arguments)) added.push(id);
    }
    if (added.length > 0) setShown((before) => new Set([...before, ...added]));
  };
  useEffect(() => look.current());

  const listed = prompts.length > 0;
  useEffect(() => {
    const list = scrollRef.current;
    if (!list) return;
    const onScroll = () => look.current();
    list.addEventListener('scroll', onScroll, { passive: true });
    const timer = setInterval(onScroll, LOOK_INTERVAL_MS);
    return () => {
      list.removeEventListener('scroll', onScroll);
      clearInterval(timer);
    };
  }, [scrollRef, listed]);

  return shown;
}
