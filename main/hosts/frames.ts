/**
 * Length-prefixed JSON frames: a 4-byte big-endian length, then that many bytes of UTF-8 JSON.
 * Node's own IPC buffers a message until its newline, however long; a tool process is untrusted, so
 * the gate reads frames instead and refuses one longer than it is willing to hold.
 */

const HEADER_BYTES = 4;

/** Encodes one message as a frame. */
export function encodeFrame(message: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(message), 'utf8');
  const header = Buffer.alloc(HEADER_BYTES);
  header.writeUInt32BE(body.length, 0);
  return Buffer.concat([header, body]);
}

/** What a frame reader reports besides messages. */
export interface FrameReaderEvents {
  /** One decoded message (unvalidated: check it). */
  onMessage(message: unknown): void;
  /** The peer announced a frame longer than the limit, or sent bytes that are not JSON; stop reading. */
  onViolation(reason: { kind: 'oversize'; bytes: number } | { kind: 'malformed'; detail: string }): void;
}

/**
 * Turns a byte stream into messages. Holds at most one frame of `maxFrameBytes` (plus a header):
 * a peer that announces more is reported before a byte of it is kept.
 */
export function createFrameReader(maxFrameBytes: number, events: FrameReaderEvents): (chunk: Buffer) => void {
  let chunks: Buffer[] = [];
  let buffered = 0;
  let expected: number | undefined;
  let stopped = false;

  const take = (bytes: number): Buffer => {
    const joined = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, buffered);
    const head = joined.subarray(0, bytes);
    const rest = joined.subarray(bytes);
    chunks = rest.length > 0 ? [rest] : [];
    buffered = rest.length;
    return head;
  };

  return (chunk) => {
    if (stopped) return;
    chunks.push(chunk);
    buffered += chunk.length;
    for (;;) {
      if (expected === undefined) {
        if (buffered < HEADER_BYTES) return;
        expected = take(HEADER_BYTES).readUInt32BE(0);
        if (expected > maxFrameBytes) {
          stopped = true;
          chunks = [];
          events.onViolation({ kind: 'oversize', bytes: expected });
          return;
        }
      }
      if (buffered < expected) return;
      const body = take(expected);
      expected = undefined;
      let message: unknown;
      try {
        message = JSON.parse(body.toString('utf8'));
      } catch (error) {
        stopped = true;
        chunks = [];
        events.onViolation({ kind: 'malformed', detail: (error as Error).message });
        return;
      }
      events.onMessage(message);
    }
  };
}
