import { isWellFormedText } from '../../shared/jsonLimits';

/**
 * Length-prefixed frames: a 4-byte big-endian length, then that many bytes. Node's own IPC buffers a
 * message until its newline, however long; a tool process is untrusted, so the gate reads frames
 * instead and refuses one longer than it is willing to hold.
 *
 * A frame holds one message as UTF-8 JSON. A message carrying long strings (a file's text, a 1 MiB
 * echo) has them lifted out of the JSON and sent as raw UTF-8 after it: turning a long string into
 * JSON and back costs several times more than copying its bytes, and is most of what a large call
 * pays to travel. Such a frame has the length's top bit set (no frame comes near 2 GiB) and its body
 * is a 4-byte JSON length, the JSON `[message, lifted]`, then the lifted strings' bytes in order;
 * `lifted` lists each string's place in the message (keys and indexes) and its byte length, and the
 * message holds null there.
 */

const HEADER_BYTES = 4;
/** Set in a frame's length when its body carries lifted strings. */
const LIFTED_FLAG = 0x8000_0000;
/** Strings at least this long travel as raw bytes; shorter ones are cheaper left in the JSON. */
export const LIFT_MIN_CHARS = 16 * 1024;
/** Values a message is searched through for long strings; a bigger message goes as plain JSON. */
const LIFT_SEARCH_LIMIT = 4096;
/** Receive buffers up to this size are kept for the next frame; a larger one is let go after use. */
const KEPT_BUFFER_BYTES = 4 * 1024 * 1024;

/** Where a lifted string sits in its message: the keys and array indexes leading to it. */
type Place = (string | number)[];

/** A long string found in a message, with its place. */
interface Lifted {
  place: Place;
  text: string;
}

/**
 * The message's long, well-formed strings and a copy of the message with null in their places
 * (only the objects and arrays on the way to them are copied). Values JSON.stringify would turn
 * into something else (toJSON, class instances) are left whole, so the JSON is what it was.
 * A string with a lone surrogate stays in the JSON, whose escapes keep it exact; UTF-8 would not.
 */
function liftLongStrings(message: unknown): { message: unknown; lifted: Lifted[] } {
  const lifted: Lifted[] = [];
  let visited = 0;
  const visit = (value: unknown, place: Place): unknown => {
    if (++visited > LIFT_SEARCH_LIMIT) return value;
    if (typeof value === 'string') {
      if (value.length < LIFT_MIN_CHARS || !isWellFormedText(value)) return value;
      lifted.push({ place: [...place], text: value });
      return null;
    }
    if (typeof value !== 'object' || value === null || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        place.push(i);
        const member = visit(value[i], place);
        place.pop();
        if (member !== value[i]) (copy ??= [...value])[i] = member;
      }
      return copy ?? value;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return value;
    let copy: Record<string, unknown> | undefined;
    for (const key of Object.keys(value)) {
      const original = (value as Record<string, unknown>)[key];
      place.push(key);
      const member = visit(original, place);
      place.pop();
      if (member !== original) (copy ??= { ...value })[key] = member;
    }
    return copy ?? value;
  };
  const copied = visit(message, []);
  return { message: lifted.length > 0 ? copied : message, lifted };
}

/** Encodes one message as a frame, its long strings lifted out of the JSON, into a buffer from `allocate`. */
export function encodeFrame(message: unknown, allocate: (bytes: number) => Buffer = Buffer.allocUnsafe): Buffer {
  const { message: head, lifted } = liftLongStrings(message);
  if (lifted.length === 0) {
    const json = JSON.stringify(message);
    const frame = allocate(HEADER_BYTES + Buffer.byteLength(json, 'utf8'));
    frame.writeUInt32BE(frame.length - HEADER_BYTES, 0);
    frame.write(json, HEADER_BYTES, 'utf8');
    return frame;
  }
  const lengths = lifted.map(({ text }) => Buffer.byteLength(text, 'utf8'));
  const json = JSON.stringify([head, lifted.map(({ place }, i) => [place, lengths[i]])]);
  const jsonBytes = Buffer.byteLength(json, 'utf8');
  const bodyBytes = HEADER_BYTES + jsonBytes + lengths.reduce((sum, length) => sum + length, 0);
  // Not zero-filled: every byte is written below.
  const frame = allocate(HEADER_BYTES + bodyBytes);
  frame.writeUInt32BE((bodyBytes | LIFTED_FLAG) >>> 0, 0);
  frame.writeUInt32BE(jsonBytes, HEADER_BYTES);
  let at = 2 * HEADER_BYTES + frame.write(json, 2 * HEADER_BYTES, 'utf8');
  for (const { text } of lifted) at += frame.write(text, at, 'utf8');
  return frame;
}

/**
 * Sends messages as frames through `write`, which calls `sent` once the stream no longer needs the
 * frame's bytes. A large frame is encoded into one buffer kept for the next, whenever the stream
 * has sent the last one out of it: a fresh megabyte costs more in page faults than writing into it.
 */
export function createFrameWriter(write: (frame: Buffer, sent: () => void) => void): (message: unknown) => void {
  let kept: Buffer | undefined;
  let keptInUse = false;
  return (message) => {
    let usesKept = false;
    const frame = encodeFrame(message, (bytes) => {
      if (bytes < 64 * 1024 || bytes > KEPT_BUFFER_BYTES || keptInUse) return Buffer.allocUnsafe(bytes);
      if (!kept || kept.length < bytes) kept = Buffer.allocUnsafe(Math.max(bytes, 1024 * 1024));
      usesKept = true;
      return kept.subarray(0, bytes);
    });
    keptInUse ||= usesKept;
    write(frame, () => {
      if (usesKept) keptInUse = false;
    });
  };
}

/** What a frame reader reports besides messages. */
export interface FrameReaderEvents {
  /** One decoded message (unvalidated: check it). */
  onMessage(message: unknown): void;
  /** The peer announced a frame longer than the limit, or sent bytes that are not a message; stop reading. */
  onViolation(reason: { kind: 'oversize'; bytes: number } | { kind: 'malformed'; detail: string }): void;
}

/** Why a frame's bytes are not a message. */
class MalformedFrame extends Error {}

/** The message a frame body holds. */
function decodeBody(body: Buffer, lifted: boolean): unknown {
  if (!lifted) return JSON.parse(body.toString('utf8'));
  if (body.length < HEADER_BYTES) throw new MalformedFrame('the frame is shorter than its JSON length');
  const jsonEnd = HEADER_BYTES + body.readUInt32BE(0);
  if (jsonEnd > body.length) throw new MalformedFrame('the JSON runs past the frame');
  const head: unknown = JSON.parse(body.toString('utf8', HEADER_BYTES, jsonEnd));
  if (!Array.isArray(head) || head.length !== 2 || !Array.isArray(head[1])) throw new MalformedFrame('the frame lists no lifted strings');
  const [message, places] = head as [unknown, unknown[]];
  let at = jsonEnd;
  for (const entry of places) {
    if (!Array.isArray(entry) || entry.length !== 2) throw new MalformedFrame('a lifted string is not [place, bytes]');
    const [place, bytes] = entry as [unknown, unknown];
    if (!Number.isSafeInteger(bytes) || (bytes as number) < 0 || at + (bytes as number) > body.length) {
      throw new MalformedFrame('a lifted string runs past the frame');
    }
    putAt(message, place, body.toString('utf8', at, at + (bytes as number)));
    at += bytes as number;
  }
  if (at !== body.length) throw new MalformedFrame('the frame holds bytes no lifted string claims');
  return message;
}

/**
 * Puts a lifted string back where the message holds null for it. The place comes from the peer:
 * every step must be the container's own member (never a prototype's), and the last one null.
 */
function putAt(message: unknown, place: unknown, text: string): void {
  if (!Array.isArray(place) || place.length === 0) throw new MalformedFrame('a lifted string has no place');
  let container: unknown = message;
  for (let i = 0; i < place.length; i++) {
    const key: unknown = place[i];
    const fits = Array.isArray(container)
      ? Number.isSafeInteger(key) && (key as number) >= 0 && (key as number) < container.length
      : typeof container === 'object' && container !== null && typeof key === 'string' && Object.hasOwn(container, key);
    if (!fits) throw new MalformedFrame('a lifted string names a place the message does not have');
    const holder = container as Record<string | number, unknown>;
    if (i < place.length - 1) {
      container = holder[key as string | number];
      continue;
    }
    if (holder[key as string | number] !== null) throw new MalformedFrame('a lifted string names a place that is not empty');
    // Defined, not assigned: a member called __proto__ stays a member.
    Object.defineProperty(holder, key as string | number, { value: text, writable: true, enumerable: true, configurable: true });
  }
}

/**
 * Turns a byte stream into messages. Holds at most one frame of `maxFrameBytes` (plus a header):
 * a peer that announces more is reported before a byte of it is kept. A frame that arrives in
 * pieces is copied once, into a buffer kept for the next frame; one that arrives whole is read in place.
 */
export function createFrameReader(maxFrameBytes: number, events: FrameReaderEvents): (chunk: Buffer) => void {
  /** Bytes of a header that arrived split across chunks. */
  let partialHeader: Buffer | undefined;
  /** The frame being gathered: its length, whether it lifts strings, and how much has arrived. */
  let frame: { bytes: number; lifted: boolean; body: Buffer; filled: number } | undefined;
  let kept: Buffer | undefined;
  let stopped = false;

  const stop = (reason: Parameters<FrameReaderEvents['onViolation']>[0]): void => {
    stopped = true;
    frame = undefined;
    kept = undefined;
    events.onViolation(reason);
  };
  /** Decodes and delivers one whole body; false when it was malformed (reading has stopped). */
  const deliver = (body: Buffer, lifted: boolean): boolean => {
    let message: unknown;
    try {
      message = decodeBody(body, lifted);
    } catch (error) {
      stop({ kind: 'malformed', detail: (error as Error).message });
      return false;
    }
    events.onMessage(message);
    return true;
  };
  const bodyBuffer = (bytes: number): Buffer => {
    if (bytes > KEPT_BUFFER_BYTES) return Buffer.allocUnsafe(bytes);
    if (!kept || kept.length < bytes) kept = Buffer.allocUnsafe(Math.max(bytes, 64 * 1024));
    return kept.subarray(0, bytes);
  };

  return (chunk) => {
    let at = 0;
    while (!stopped && at < chunk.length) {
      if (frame) {
        const taken = chunk.copy(frame.body, frame.filled, at, Math.min(chunk.length, at + frame.bytes - frame.filled));
        frame.filled += taken;
        at += taken;
        if (frame.filled < frame.bytes) return;
        const { body, lifted } = frame;
        frame = undefined;
        if (!deliver(body, lifted)) return;
        continue;
      }
      let header: Buffer;
      if (partialHeader || chunk.length - at < HEADER_BYTES) {
        const piece = chunk.subarray(at, at + HEADER_BYTES - (partialHeader?.length ?? 0));
        at += piece.length;
        partialHeader = partialHeader ? Buffer.concat([partialHeader, piece]) : Buffer.from(piece);
        if (partialHeader.length < HEADER_BYTES) return;
        header = partialHeader;
        partialHeader = undefined;
      } else {
        header = chunk.subarray(at, at + HEADER_BYTES);
        at += HEADER_BYTES;
      }
      const word = header.readUInt32BE(0);
      const lifted = (word & LIFTED_FLAG) !== 0;
      const bytes = word & ~LIFTED_FLAG;
      if (bytes > maxFrameBytes) return stop({ kind: 'oversize', bytes });
      if (chunk.length - at >= bytes) {
        // The whole frame is in this chunk: decoded where it lies.
        const body = chunk.subarray(at, at + bytes);
        at += bytes;
        if (!deliver(body, lifted)) return;
        continue;
      }
      frame = { bytes, lifted, body: bodyBuffer(bytes), filled: 0 };
    }
  };
}
