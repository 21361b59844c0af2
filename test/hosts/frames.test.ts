import { describe, expect, it } from 'vitest';
import { createFrameReader, createFrameWriter, encodeFrame, LIFT_MIN_CHARS } from '../../main/hosts/frames';

type Violation = Parameters<Parameters<typeof createFrameReader>[1]['onViolation']>[0];

/** Feeds bytes to a reader in pieces of `piece` bytes; returns what it delivered and any violation. */
function read(bytes: Buffer, piece = bytes.length, maxFrameBytes = 64 * 1024 * 1024): { messages: unknown[]; violation?: Violation } {
  const messages: unknown[] = [];
  let violation: Violation | undefined;
  const reader = createFrameReader(maxFrameBytes, { onMessage: (message) => messages.push(message), onViolation: (reason) => (violation = reason) });
  for (let at = 0; at < bytes.length; at += piece) reader(bytes.subarray(at, at + piece));
  return { messages, ...(violation ? { violation } : {}) };
}

/** A frame with lifted strings, built by hand the way a hostile peer could: [message, places] then raw bytes. */
function liftedFrame(head: unknown, tail: string): Buffer {
  const json = Buffer.from(JSON.stringify(head));
  const body = Buffer.concat([Buffer.alloc(4), json, Buffer.from(tail)]);
  body.writeUInt32BE(json.length, 0);
  const header = Buffer.alloc(4);
  header.writeUInt32BE((body.length | 0x8000_0000) >>> 0, 0);
  return Buffer.concat([header, body]);
}

const long = (fill: string) => fill.repeat(LIFT_MIN_CHARS);

describe('frames between the gate and a tool process', () => {
  it('carries messages with long strings exactly, whole or split into any pieces', () => {
    const message = {
      type: 'result',
      callId: 'c1',
      ok: true,
      data: { text: long('x'), nested: [1, long('é'), { emoji: long('🙂'), short: 'hi' }], __proto__member: null, empty: '' },
    };
    const frames = Buffer.concat([encodeFrame(message), encodeFrame({ type: 'ready' }), encodeFrame(message)]);
    for (const piece of [frames.length, 65536, 4093, 3, 1]) {
      const { messages, violation } = read(frames, piece);
      expect(violation).toBeUndefined();
      expect(messages).toEqual([message, { type: 'ready' }, message]);
    }
  });

  it('keeps a long string holding a lone surrogate exact (it stays in the JSON)', () => {
    const message = { text: `${long('a')}\uD800` };
    expect(read(encodeFrame(message)).messages).toEqual([message]);
  });

  it('does not change the message it encodes, and keeps what toJSON says', () => {
    const data = { text: long('x'), when: new Date(0), list: [long('y')] };
    const before = { ...data, list: [...data.list] };
    const { messages } = read(encodeFrame(data));
    expect(data).toEqual(before);
    expect(messages).toEqual([JSON.parse(JSON.stringify(data))]);
  });

  it('a lifted string under the key __proto__ stays a member and changes no prototype', () => {
    const message = JSON.parse(`{"__proto__": ${JSON.stringify(long('p'))}}`) as Record<string, unknown>;
    const [decoded] = read(encodeFrame(message)).messages as Record<string, unknown>[];
    expect(Object.hasOwn(decoded!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a frame announced longer than the limit before holding its body', () => {
    const frame = encodeFrame({ text: long('x') });
    const { messages, violation } = read(frame.subarray(0, 4), 4, 1024);
    expect(messages).toEqual([]);
    expect(violation).toEqual({ kind: 'oversize', bytes: frame.length - 4 });
  });

  it.each([
    ['a place through a prototype', [{ a: null }, [[['__proto__', 'polluted'], 1]]], 'x'],
    ['a place the message lacks', [{ a: null }, [[['b'], 1]]], 'x'],
    ['a place that is not empty', [{ a: 'kept' }, [[['a'], 1]]], 'x'],
    ['an array index out of range', [[null], [[[5], 1]]], 'x'],
    ['a string running past the frame', [{ a: null }, [[['a'], 50]]], 'x'],
    ['bytes no string claims', [{ a: null }, [[['a'], 1]]], 'xyz'],
    ['a negative length', [{ a: null }, [[['a'], -1]]], 'x'],
    ['no list of places', { a: null }, 'x'],
    ['an empty place', [{ a: null }, [[[], 1]]], 'x'],
  ])('refuses a lifted frame with %s, and pollutes nothing', (_why, head, tail) => {
    const { messages, violation } = read(liftedFrame(head, tail));
    expect(messages).toEqual([]);
    expect(violation?.kind).toBe('malformed');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a frame that is not JSON and reads nothing after it', () => {
    const body = Buffer.from('{not json');
    const header = Buffer.alloc(4);
    header.writeUInt32BE(body.length, 0);
    const { messages, violation } = read(Buffer.concat([header, body, encodeFrame({ type: 'ready' })]));
    expect(messages).toEqual([]);
    expect(violation?.kind).toBe('malformed');
  });

  it('never writes a frame into a buffer the stream still holds, and reuses it once sent', () => {
    const written: { frame: Buffer; sent: () => void }[] = [];
    const send = createFrameWriter((frame, sent) => written.push({ frame, sent }));
    // Frames of 128 KiB: small ones are not worth keeping a buffer for.
    const first = { text: long('a').repeat(8) };
    const second = { text: long('b').repeat(8) };
    send(first);
    send(second);
    // The first frame is still held by the stream: the second went into other bytes.
    expect(written[0]!.frame.buffer === written[1]!.frame.buffer).toBe(false);
    expect(read(Buffer.concat([written[0]!.frame, written[1]!.frame])).messages).toEqual([first, second]);
    written[0]!.sent();
    const third = { text: long('c').repeat(8) };
    send(third);
    expect(written[2]!.frame.buffer === written[0]!.frame.buffer).toBe(true);
    expect(read(written[2]!.frame).messages).toEqual([third]);
  });
});
