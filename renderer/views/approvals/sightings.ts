/** The parts of one card a person has had in view, in pixels from its top, merged and sorted. */
export interface Sighting {
  /** The card's height when these parts were seen; a card that grows or shrinks is seen anew. */
  readonly height: number;
  /** Spans [top, bottom) that were inside the list's visible frame at some moment. */
  readonly spans: ReadonlyArray<readonly [number, number]>;
}

/** A card whose height changed by more than this (a preview opened, an editor laid out) counts as unseen again. */
const HEIGHT_TOLERANCE_PX = 1;

/**
 * Adds what is in view now (`top`..`bottom`, in pixels from the card's top) to what was seen of
 * a card `height` pixels tall. A span that is empty (the card is out of view) adds nothing.
 */
export function recordSight(previous: Sighting | undefined, height: number, top: number, bottom: number): Sighting {
  const kept = previous && Math.abs(previous.height - height) <= HEIGHT_TOLERANCE_PX ? previous.spans : [];
  const from = Math.max(0, top);
  const to = Math.min(height, bottom);
  if (to <= from) return { height, spans: kept };
  const spans = [...kept, [from, to] as const].sort((a, b) => a[0] - b[0]);
  const merged: Array<[number, number]> = [];
  for (const [start, end] of spans) {
    const last = merged.at(-1);
    if (last && start <= last[1] + HEIGHT_TOLERANCE_PX) last[1] = Math.max(last[1], end);
    else merged.push([start, end]);
  }
  return { height, spans: merged };
}

/** Whether every pixel row of the card has been in view (a card taller than the list counts once scrolled through). */
export function seenWhole(sighting: Sighting | undefined): boolean {
  if (!sighting || sighting.height <= 0 || sighting.spans.length !== 1) return false;
  const [start, end] = sighting.spans[0]!;
  return start <= HEIGHT_TOLERANCE_PX && end >= sighting.height - HEIGHT_TOLERANCE_PX;
}

/**
 * Parts of a card that keep some of the call from view until the person opens them: a large diff
 * not drawn, a folded command line or sub-command, a delete listing cut short. While one is there,
 * the card is not shown in full, however far it was scrolled.
 */
export const HELD_BACK_SELECTOR = ['.preview-large', '.delete-more', 'details.folded-command-line:not([open])', 'details.folded-sub-command:not([open])'].join(', ');

/** Markers the gate puts in arguments it cut for the console (a long string's prefix, a count of members left out). */
const CUT_ARGUMENT_KEYS = /"toolgate\/(?:omitted|truncated)"/;

/** Whether the arguments a prompt shows were cut by the gate: then nobody can have seen them whole. */
export function argumentsCut(args: unknown): boolean {
  return CUT_ARGUMENT_KEYS.test(JSON.stringify(args) ?? '');
}
