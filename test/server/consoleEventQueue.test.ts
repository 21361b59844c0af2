/**
 * The events on their way to one console: a burst goes as one frame, a call's snapshots are
 * coalesced to its latest, and nothing else is merged, dropped or reordered.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallSnapshot, CallStatus } from '../../shared/call';
import { ConsoleEventQueue, EVENT_BATCH_MS, type QueuedEvent } from '../../main/server/consoleEventQueue';

const STEPS: CallStatus[] = ['checking', 'running', 'completed'];

function snapshot(callId: string, status: CallStatus): CallSnapshot {
  return { callId, tool: 'echo', arguments: { text: callId }, source: 'mcp', status, step: status, startedAt: '2026-11-23T12:00:00.000Z' };
}

let frames: Array<readonly QueuedEvent[]>;
let queue: ConsoleEventQueue;

beforeEach(() => {
  vi.useFakeTimers();
  frames = [];
  queue = new ConsoleEventQueue((events) => frames.push(events));
});

afterEach(() => {
  queue.close();
  vi.useRealTimers();
});

const shown = (events: readonly QueuedEvent[]) =>
  events.map(({ event, payload }) => (event === 'callUpdated' ? `${(payload as CallSnapshot).callId} ${(payload as CallSnapshot).status}` : `${event} ${(payload as { seq: number }).seq}`));

describe('ConsoleEventQueue', () => {
  it('sends a burst of a hundred calls as one frame, each call once, in its latest state', () => {
    for (const status of STEPS) {
      for (let index = 0; index < 100; index++) {
        queue.push('callUpdated', snapshot(`call-${index}`, status));
        queue.push('auditAppended', { seq: frames.length * 1000 + index });
      }
    }
    expect(frames).toHaveLength(0);
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    expect(frames).toHaveLength(1);
    const calls = frames[0]!.filter((item) => item.event === 'callUpdated');
    expect(calls).toHaveLength(100);
    expect(calls.every((item) => (item.payload as CallSnapshot).status === 'completed')).toBe(true);
    // Every audit record goes, none merged.
    expect(frames[0]!.filter((item) => item.event === 'auditAppended')).toHaveLength(300);
  });

  it('keeps the order events happened in, a coalesced call at the place of its first update', () => {
    queue.push('callUpdated', snapshot('a', 'checking'));
    queue.push('auditAppended', { seq: 1 });
    queue.push('callUpdated', snapshot('b', 'checking'));
    queue.push('callUpdated', snapshot('a', 'completed'));
    queue.push('auditAppended', { seq: 2 });
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    expect(shown(frames[0]!)).toEqual(['a completed', 'auditAppended 1', 'b checking', 'auditAppended 2']);
  });

  it("always delivers a call's last update, whichever frame it falls in", () => {
    queue.push('callUpdated', snapshot('a', 'checking'));
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    queue.push('callUpdated', snapshot('a', 'running'));
    queue.push('callUpdated', snapshot('a', 'completed'));
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    expect(frames.map(shown)).toEqual([['a checking'], ['a completed']]);
  });

  it('sends at once on flush (a reply must not overtake the events before it), and nothing when empty', () => {
    queue.push('callUpdated', snapshot('a', 'running'));
    queue.flush();
    expect(frames.map(shown)).toEqual([['a running']]);
    queue.flush();
    vi.advanceTimersByTime(EVENT_BATCH_MS * 2);
    expect(frames).toHaveLength(1);
  });

  it('sends nothing after close, and closing twice is fine', () => {
    queue.push('callUpdated', snapshot('a', 'running'));
    queue.close();
    queue.close();
    queue.push('callUpdated', snapshot('a', 'completed'));
    vi.advanceTimersByTime(EVENT_BATCH_MS * 2);
    expect(frames).toHaveLength(0);
  });
});
