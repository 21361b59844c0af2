/**
 * The events on their way to one console: a burst goes as one frame, a call's snapshots are
 * coalesced to its latest, and nothing else is merged, dropped or reordered.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CallSnapshot, CallStatus } from '../../shared/call';
import { ConsoleEventQueue, EVENT_BATCH_MS, type QueuedEvent } from '../../main/server/consoleEventQueue';

/** An echo's snapshots as the executor sends them: its checks' steps, then running, then the end. */
const PROGRESS: Array<[CallStatus, string]> = [
  ['checking', 'lookup'],
  ['checking', 'validate'],
  ['checking', 'policy'],
  ['running', 'started'],
  ['running', 'tool'],
  ['completed', 'completed'],
];

function snapshot(callId: string, status: CallStatus, step: string = status): CallSnapshot {
  return { callId, tool: 'echo', arguments: { text: callId }, source: 'mcp', status, step, startedAt: '2026-11-23T12:00:00.000Z' };
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

/** Each event as `callId status` or `event seq`. */
const shown = (events: readonly QueuedEvent[]) =>
  events.map(({ event, payload }) => (event === 'callUpdated' ? `${(payload as CallSnapshot).callId} ${(payload as CallSnapshot).status}` : `${event} ${(payload as { seq: number }).seq}`));

describe('ConsoleEventQueue', () => {
  it('sends a burst of a hundred calls as one frame: each status of each call once, at its latest step', () => {
    for (const [status, step] of PROGRESS) {
      for (let index = 0; index < 100; index++) {
        queue.push('callUpdated', snapshot(`call-${index}`, status, step));
        queue.push('auditAppended', { seq: index });
      }
    }
    expect(frames).toHaveLength(0);
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    expect(frames).toHaveLength(1);
    const calls = frames[0]!.filter((item) => item.event === 'callUpdated').map((item) => item.payload as CallSnapshot);
    // Six snapshots a call became three: checking at its policy step, running at its tool, completed.
    expect(calls).toHaveLength(300);
    const ofFirst = calls.filter((call) => call.callId === 'call-0').map((call) => `${call.status} ${call.step}`);
    expect(ofFirst).toEqual(['checking policy', 'running tool', 'completed completed']);
    // Every audit record goes, none merged.
    expect(frames[0]!.filter((item) => item.event === 'auditAppended')).toHaveLength(600);
  });

  it('never skips a call waiting for a person, however soon it was approved', () => {
    queue.push('callUpdated', snapshot('a', 'checking', 'policy'));
    queue.push('callUpdated', snapshot('a', 'awaiting-approval', 'approval'));
    queue.push('callUpdated', snapshot('a', 'running', 'started'));
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    expect(shown(frames[0]!)).toEqual(['a checking', 'a awaiting-approval', 'a running']);
  });

  it('keeps the order events happened in, a coalesced call at the place of its first update', () => {
    queue.push('callUpdated', snapshot('a', 'checking', 'lookup'));
    queue.push('auditAppended', { seq: 1 });
    queue.push('callUpdated', snapshot('b', 'checking', 'lookup'));
    queue.push('callUpdated', snapshot('a', 'checking', 'policy'));
    queue.push('auditAppended', { seq: 2 });
    queue.push('callUpdated', snapshot('a', 'running', 'started'));
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    expect(frames[0]!.map(({ event, payload }) => (event === 'callUpdated' ? `${(payload as CallSnapshot).callId} ${(payload as CallSnapshot).step}` : `${event} ${(payload as { seq: number }).seq}`))).toEqual([
      'a policy',
      'auditAppended 1',
      'b lookup',
      'auditAppended 2',
      'a started',
    ]);
  });

  it("always delivers a call's last update, whichever frame it falls in", () => {
    queue.push('callUpdated', snapshot('a', 'checking', 'lookup'));
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    queue.push('callUpdated', snapshot('a', 'checking', 'policy'));
    queue.push('callUpdated', snapshot('a', 'running', 'started'));
    queue.push('callUpdated', snapshot('a', 'running', 'tool'));
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    queue.push('callUpdated', snapshot('a', 'completed'));
    vi.advanceTimersByTime(EVENT_BATCH_MS);
    expect(frames.map(shown)).toEqual([['a checking'], ['a checking', 'a running'], ['a completed']]);
    expect((frames[1]![1]!.payload as CallSnapshot).step).toBe('tool');
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
