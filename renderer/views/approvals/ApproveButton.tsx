import { createContext, useContext, useEffect, useState, type ButtonHTMLAttributes, type MouseEvent } from 'react';
import { ButtonPlaces, type ButtonRect } from './buttonPlaces';

/** The attribute naming an approving button for the watch. */
const HOLD_KEY = 'data-hold-key';

/** Shown on a held button, for a pointer resting on it. */
const HELD_TITLE = 'This prompt just appeared or moved: it takes a click in a moment';

/**
 * Watches where the Approvals view's approving buttons stand (ButtonPlaces): after anything that may
 * move them (a card drawn, answered or grown, a banner, a resize), they are measured again in the
 * next frame, and each one that appeared or moved is held for APPROVE_HOLD_MS; all are held anew when
 * the console comes to the front. A frame is drawn only for a visible page, so a card that arrived
 * while the page was hidden is held from when it shows.
 */
export class ApproveHolds {
  private readonly places = new ButtonPlaces();
  private readonly listeners = new Map<string, Set<() => void>>();
  private readonly heldBackListeners = new Set<() => void>();
  private frame: number | undefined;

  /** Starts watching the buttons inside `view` (anything on the page may move them); returns how to stop. */
  start(view: HTMLElement): () => void {
    const soon = () => this.measureSoon(view);
    const mutations = new MutationObserver(soon);
    mutations.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['style', 'class', 'hidden', 'open'] });
    const sizes = new ResizeObserver(soon);
    sizes.observe(document.documentElement);
    window.addEventListener('resize', soon);
    // The console coming to the front (a notification clicked, a window switched to) puts every
    // button under a pointer that was aimed at something else.
    const shown = () => {
      if (document.visibilityState === 'visible') this.restartAll();
    };
    window.addEventListener('focus', shown);
    document.addEventListener('visibilitychange', shown);
    this.measureSoon(view);
    return () => {
      mutations.disconnect();
      sizes.disconnect();
      window.removeEventListener('resize', soon);
      window.removeEventListener('focus', shown);
      document.removeEventListener('visibilitychange', shown);
      if (this.frame !== undefined) cancelAnimationFrame(this.frame);
      this.frame = undefined;
    };
  }

  /** When the button's hold ends (performance.now() time). */
  heldUntil(key: string): number {
    return this.places.heldUntil(key);
  }

  /**
   * Whether a click on the button may approve now: it has stood where it is for the whole hold. It is
   * measured again here, so a move the watch has not yet seen holds it too.
   */
  stillNow(key: string, button: HTMLElement): boolean {
    const now = performance.now();
    if (this.places.seen(key, rectOf(button), now)) {
      this.tell(key);
      return false;
    }
    return now >= this.places.heldUntil(key);
  }

  /** Tells whoever listens (the view's note) that a pointer's click was just held back. */
  heldBack(): void {
    for (const listener of [...this.heldBackListeners]) listener();
  }

  /** Calls `listener` whenever a click is held back; returns how to stop. */
  onHeldBack(listener: () => void): () => void {
    this.heldBackListeners.add(listener);
    return () => this.heldBackListeners.delete(listener);
  }

  /** Calls `listener` whenever the button's hold starts anew; returns how to stop. */
  subscribe(key: string, listener: () => void): () => void {
    let set = this.listeners.get(key);
    if (!set) this.listeners.set(key, (set = new Set()));
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0) this.listeners.delete(key);
    };
  }

  private measureSoon(view: HTMLElement): void {
    this.frame ??= requestAnimationFrame(() => {
      this.frame = undefined;
      this.measure(view);
    });
  }

  /** Holds every drawn button anew, from now. */
  private restartAll(): void {
    for (const key of this.places.restartAll(performance.now())) this.tell(key);
  }

  private measure(view: HTMLElement): void {
    const drawn = new Map<string, ButtonRect>();
    for (const button of view.querySelectorAll<HTMLElement>(`[${HOLD_KEY}]`)) drawn.set(button.getAttribute(HOLD_KEY)!, rectOf(button));
    for (const key of this.places.seenAll(drawn, performance.now())) this.tell(key);
  }

  private tell(key: string): void {
    for (const listener of [...(this.listeners.get(key) ?? [])]) listener();
  }
}

/**
 * Where a button stands on the page apart from scrolling: its rect on the screen plus how far each
 * box around it (and the window) is scrolled. A scroll is the person's own doing (or a key's), and
 * moves nothing they did not ask to see move; a card answered, drawn or grown above it does.
 */
function rectOf(element: HTMLElement): ButtonRect {
  const { left, top, width, height } = element.getBoundingClientRect();
  let scrolledLeft = window.scrollX;
  let scrolledTop = window.scrollY;
  // The page's own scroll is the window's (documentElement's scrollTop is the same number).
  for (let box = element.parentElement; box && box !== document.documentElement; box = box.parentElement) {
    scrolledLeft += box.scrollLeft;
    scrolledTop += box.scrollTop;
  }
  return { left: left + scrolledLeft, top: top + scrolledTop, width, height };
}

/** How long the note on a held-back click stays. */
const HELD_BACK_NOTE_MS = 4_000;

/**
 * A note, fixed at the foot of the window so it moves no button, while a click was just held back:
 * what happened and what to do. Polite to assistive technology, as the hold itself is.
 */
export function HeldBackNote({ holds }: { holds: ApproveHolds }) {
  const [shown, setShown] = useState(false);
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stop = holds.onHeldBack(() => {
      clearTimeout(timer);
      setShown(true);
      timer = setTimeout(() => setShown(false), HELD_BACK_NOTE_MS);
    });
    return () => {
      stop();
      clearTimeout(timer);
    };
  }, [holds]);
  return (
    <p className="held-back-note" role="status" data-testid="held-back-note">
      {shown ? 'Not approved: that button had just appeared or moved when you clicked. Click it again if you meant it.' : ''}
    </p>
  );
}

/** The Approvals view's watch; without one (a card drawn elsewhere) no button is held. */
export const ApproveHoldsContext = createContext<ApproveHolds | undefined>(undefined);

/**
 * Whether the approving button `key` is held now, drawn again when that changes. A button starts
 * held: it has not yet been seen standing anywhere.
 */
function useApproveHold(key: string): { held: boolean; holds: ApproveHolds | undefined } {
  const holds = useContext(ApproveHoldsContext);
  const [held, setHeld] = useState(holds !== undefined);
  useEffect(() => {
    if (!holds) return;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const update = () => {
      clearTimeout(timer);
      const left = holds.heldUntil(key) - performance.now();
      setHeld(left > 0);
      if (left > 0 && Number.isFinite(left)) timer = setTimeout(update, Math.ceil(left));
    };
    const unsubscribe = holds.subscribe(key, update);
    update();
    return () => {
      unsubscribe();
      clearTimeout(timer);
    };
  }, [holds, key]);
  return { held, holds };
}

/**
 * A button that approves (a call, an agent's calls, a rule): it takes no click from a pointer while
 * held, for APPROVE_HOLD_MS after it appears or moves on the screen, and says so (dimmed, and
 * aria-disabled for assistive technology). A key (A, or Enter on the focused button) is not a
 * click at a place on the screen: the keys keep their own guard (approvalKeys.ts).
 */
export function ApproveButton({ holdKey, onClick, className, title, ...rest }: ButtonHTMLAttributes<HTMLButtonElement> & { holdKey: string }) {
  const { held, holds } = useApproveHold(holdKey);
  function clicked(event: MouseEvent<HTMLButtonElement>): void {
    // A pointer's click has a count; a key's and a script's click() have none.
    if (event.detail > 0 && holds && !holds.stillNow(holdKey, event.currentTarget)) {
      // A button that looked ready can move in the very instant of the click: the person is told
      // why nothing happened, not left to wonder.
      holds.heldBack();
      return;
    }
    onClick?.(event);
  }
  return (
    <button
      type="button"
      {...rest}
      className={className}
      {...{ [HOLD_KEY]: holdKey }}
      aria-disabled={held ? true : undefined}
      title={held ? HELD_TITLE : title}
      onClick={clicked}
    />
  );
}
