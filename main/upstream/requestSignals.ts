import { GATE_REFUSAL_MARK, MessageTooLarge } from './messageBound';

/**
 * What went wrong under a request that got no answer because its connection did (nothing listened,
 * the server reset or closed the connection, a name did not resolve), in the words of the socket's
 * error: "other side closed (UND_ERR_SOCKET)", "connect ECONNREFUSED 127.0.0.1:9". Undefined for
 * anything else. Node's fetch reports all of these as one TypeError, "fetch failed", its cause the
 * socket's error.
 */
export function connectionFailure(error: unknown): { why: string; refused: boolean } | undefined {
  // The SDK may wrap it ("Version negotiation probe failed: fetch failed"), keeping it as the cause.
  let failed = error;
  for (let depth = 0; depth < 4 && !isFetchFailure(failed) && failed instanceof Error; depth++) failed = failed.cause;
  if (!isFetchFailure(failed)) return undefined;
  const cause = failed.cause;
  if (!(cause instanceof Error)) return { why: 'the connection failed', refused: false };
  const code = (cause as { code?: unknown }).code;
  const why = typeof code === 'string' && !cause.message.includes(code) ? `${cause.message} (${code})` : cause.message;
  return { why, refused: code === 'ECONNREFUSED' };
}

function isFetchFailure(error: unknown): error is TypeError {
  return error instanceof TypeError && error.message === 'fetch failed';
}

/** Statuses whose answer has no body by definition (the Fetch standard's null body statuses). */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * fetch for the SDK's Streamable HTTP client transport, with an AbortSignal of its own for each
 * request. The transport gives every POST the one signal it keeps for its whole life, and Node's
 * fetch hangs a listener on that signal per request which goes only when the request is garbage
 * collected: the listeners of the calls between two collections pile up there (Node warned 4,844
 * times in 12,000 calls, past 1,500 listeners). Here the transport's signal holds one listener per
 * request in flight, taken off when the answer's body has been read, has failed or was cancelled;
 * aborting it still aborts every request in flight, a streamed answer's body included.
 */
export function fetchWithOwnSignals(base: typeof fetch = fetch, bound?: { maxMessageBytes: number }): typeof fetch {
  return async (input, init) => {
    const outer = init?.signal;
    if (!outer && !bound) return base(input, init);
    const own = new AbortController();
    const forward = () => own.abort(outer?.reason);
    const unlink = () => outer?.removeEventListener('abort', forward);
    if (outer?.aborted) forward();
    else outer?.addEventListener('abort', forward, { once: true });
    let response: Response;
    try {
      response = await base(input, { ...init, signal: own.signal });
    } catch (error) {
      unlink();
      throw error;
    }
    // Nothing more can arrive for it (or a Response could not be made again with a body): done.
    if (!response.body || NULL_BODY_STATUSES.has(response.status)) {
      unlink();
      return response;
    }
    const reader = response.body.getReader();
    const contentType = response.headers.get('content-type');
    const measure = bound ? messageMeter(contentType, bound.maxMessageBytes) : undefined;
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            unlink();
            controller.close();
          } else if (measure && !measure(value)) {
            // Nothing more of the answer is read: the request is aborted and its body let go.
            unlink();
            own.abort();
            reader.cancel().catch(() => {});
            const refusal = new MessageTooLarge(bound!.maxMessageBytes);
            const ids = isEventStream(contentType) ? requestIds(init?.body) : [];
            if (ids.length === 0) return controller.error(refusal);
            // A stream ended without an answer leaves its requests waiting until they time out: each
            // is answered with the refusal instead, after a blank line that ends the event cut short.
            const error = { code: -32603, message: refusal.message, data: { gateRefusal: GATE_REFUSAL_MARK } };
            const answers = ids.map((id) => `event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id, error })}\n\n`);
            controller.enqueue(new TextEncoder().encode(`\n\n${answers.join('')}`));
            controller.close();
          } else controller.enqueue(value);
        } catch (error) {
          unlink();
          controller.error(error);
        }
      },
      cancel(reason) {
        unlink();
        return reader.cancel(reason);
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

function isEventStream(contentType: string | null): boolean {
  return /^\s*text\/event-stream\b/i.test(contentType ?? '');
}

/** The ids of the JSON-RPC requests a POST carried (one message, or a batch); none for anything else. */
function requestIds(body: unknown): Array<string | number> {
  if (typeof body !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const ids: Array<string | number> = [];
  for (const message of Array.isArray(parsed) ? parsed : [parsed]) {
    if (typeof message !== 'object' || message === null || !('method' in message) || !('id' in message)) continue;
    const { id } = message as { id: unknown };
    if (typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id))) ids.push(id);
  }
  return ids;
}

/**
 * Counts an answer's bytes as they come against the bound on one message: a JSON answer (one
 * message, or a batch) whole; an event stream per event, each event's bytes since the blank line
 * that ended the one before (an open stream may carry any number of messages, but none larger
 * than the bound). Returns false once the bound is passed.
 */
function messageMeter(contentType: string | null, maxBytes: number): (chunk: Uint8Array) => boolean {
  const stream = isEventStream(contentType);
  let bytes = 0;
  // In an event stream: whether the line read so far is empty, and whether the last byte was CR (a CRLF's LF ends no second line).
  let lineEmpty = true;
  let afterCr = false;
  return (chunk) => {
    if (!stream) {
      bytes += chunk.byteLength;
      return bytes <= maxBytes;
    }
    for (let index = 0; index < chunk.byteLength; index++) {
      const byte = chunk[index]!;
      bytes++;
      if (byte === LF && afterCr) {
        afterCr = false;
        continue;
      }
      afterCr = byte === CR;
      if (byte === LF || byte === CR) {
        // A blank line ends the event: its bytes are counted afresh from here.
        if (lineEmpty) bytes = 0;
        lineEmpty = true;
      } else {
        lineEmpty = false;
      }
      if (bytes > maxBytes) return false;
    }
    return true;
  };
}

const LF = 0x0a;
const CR = 0x0d;
