/**
 * How long a button that approves takes no click after it appears or moves on the screen. A card
 * drawn under the pointer, or pushed there by a prompt answered or arriving above it, is not approved
 * by a click meant for what stood there before; nobody reads a prompt faster than this. (Browsers
 * hold their own permission prompts' buttons for about as long, for the same reason.)
 */
export const APPROVE_HOLD_MS = 500;

/** Where a button is drawn, in pixels. */
export interface ButtonRect {
  readonly left: number;
  readonly top: number;
  readonly width: number;
  readonly height: number;
}

/** A button's rect when last seen, and since when it has stood there. */
interface Place extends ButtonRect {
  readonly since: number;
}

/** Less than this far off is the same place (sub-pixel layout rounding is not a move). */
const SAME_PLACE_PX = 0.5;

function samePlace(place: ButtonRect, rect: ButtonRect): boolean {
  return (
    Math.abs(place.left - rect.left) < SAME_PLACE_PX &&
    Math.abs(place.top - rect.top) < SAME_PLACE_PX &&
    Math.abs(place.width - rect.width) < SAME_PLACE_PX &&
    Math.abs(place.height - rect.height) < SAME_PLACE_PX
  );
}

/**
 * Where each approving button stands on the screen, by its key, and since when. A button seen for
 * the first time, or seen somewhere else than last time, starts its hold anew. One no longer drawn
 * (its card answered or scrolled out of the list's window, its tab hidden) is forgotten, so it is
 * held again when it comes back into view: it appears under the pointer as a new one would.
 */
export class ButtonPlaces {
  private readonly places = new Map<string, Place>();

  /** Notes where every drawn button is now (a rect of no size is not drawn); returns the keys whose hold started anew. */
  seenAll(drawn: ReadonlyMap<string, ButtonRect>, now: number): string[] {
    for (const key of [...this.places.keys()]) if (!drawn.has(key)) this.places.delete(key);
    const restarted: string[] = [];
    for (const [key, rect] of drawn) if (this.seen(key, rect, now)) restarted.push(key);
    return restarted;
  }

  /** Notes where one button is now; true when its hold started anew (it was not there before). */
  seen(key: string, rect: ButtonRect, now: number): boolean {
    if (!isDrawn(rect)) {
      this.places.delete(key);
      return false;
    }
    const place = this.places.get(key);
    if (place && samePlace(place, rect)) return false;
    this.places.set(key, { left: rect.left, top: rect.top, width: rect.width, height: rect.height, since: now });
    return true;
  }

  /** Starts the hold of every button known anew (the page came to the front); returns their keys. */
  restartAll(now: number): string[] {
    for (const [key, place] of this.places) this.places.set(key, { ...place, since: now });
    return [...this.places.keys()];
  }

  /** When the button's hold ends: never, for a button not seen drawn where it is. */
  heldUntil(key: string): number {
    const place = this.places.get(key);
    return place ? place.since + APPROVE_HOLD_MS : Number.POSITIVE_INFINITY;
  }
}

function isDrawn(rect: ButtonRect): boolean {
  return rect.width > 0 && rect.height > 0;
}
