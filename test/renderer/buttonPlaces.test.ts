import { describe, expect, it } from 'vitest';
import { APPROVE_HOLD_MS, ButtonPlaces } from '../../renderer/views/approvals/buttonPlaces';

const at = (top: number, left = 40) => ({ left, top, width: 90, height: 34 });

describe('where approving buttons stand, and since when (the hold on a click after one appears or moves)', () => {
  it('holds a button never seen, and one seen for the first time until the hold has passed', () => {
    const places = new ButtonPlaces();
    expect(places.heldUntil('approve:a')).toBe(Number.POSITIVE_INFINITY);
    expect(places.seen('approve:a', at(600), 1000)).toBe(true);
    expect(places.heldUntil('approve:a')).toBe(1000 + APPROVE_HOLD_MS);
  });

  it('keeps the hold of a button that stays where it was, and starts it anew when the button moves, even a pixel', () => {
    const places = new ButtonPlaces();
    places.seen('approve:a', at(600), 1000);
    expect(places.seen('approve:a', at(600.2), 1400)).toBe(false);
    expect(places.heldUntil('approve:a')).toBe(1000 + APPROVE_HOLD_MS);
    expect(places.seen('approve:a', at(601), 2000)).toBe(true);
    expect(places.heldUntil('approve:a')).toBe(2000 + APPROVE_HOLD_MS);
    expect(places.seen('approve:a', at(601, 60), 3000)).toBe(true);
    expect(places.heldUntil('approve:a')).toBe(3000 + APPROVE_HOLD_MS);
  });

  it('forgets a button no longer drawn, so it is held again when it comes back where it was', () => {
    const places = new ButtonPlaces();
    expect(places.seenAll(new Map([['approve:a', at(600)], ['approve:b', at(900)]]), 1000)).toEqual(['approve:a', 'approve:b']);
    // b's card scrolled out of the list's window; a's tab was hidden (drawn with no size).
    expect(places.seenAll(new Map([['approve:a', { left: 0, top: 0, width: 0, height: 0 }]]), 2000)).toEqual([]);
    expect(places.heldUntil('approve:a')).toBe(Number.POSITIVE_INFINITY);
    expect(places.heldUntil('approve:b')).toBe(Number.POSITIVE_INFINITY);
    expect(places.seenAll(new Map([['approve:a', at(600)], ['approve:b', at(900)]]), 3000)).toEqual(['approve:a', 'approve:b']);
    expect(places.heldUntil('approve:b')).toBe(3000 + APPROVE_HOLD_MS);
    // Seen again where they stand: nothing starts anew.
    expect(places.seenAll(new Map([['approve:a', at(600)], ['approve:b', at(900)]]), 3100)).toEqual([]);
  });

  it('holds every button known anew when the page comes to the front, wherever it stands', () => {
    const places = new ButtonPlaces();
    places.seenAll(new Map([['approve:a', at(600)], ['agent:s', at(100)]]), 1000);
    expect(places.restartAll(5000).sort()).toEqual(['agent:s', 'approve:a']);
    expect(places.heldUntil('approve:a')).toBe(5000 + APPROVE_HOLD_MS);
    expect(places.heldUntil('agent:s')).toBe(5000 + APPROVE_HOLD_MS);
  });
});
