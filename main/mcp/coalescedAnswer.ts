import type { ServerResponse } from 'node:http';

/**
 * How long the headers of a POST's SSE answer wait for its first event before they are sent alone.
 * An auto-allowed call is answered well within it; a call that waits for a person gets its headers
 * this much later, which no agent notices (its client waits for the result either way).
 */
export const HEADER_HOLD_MS = 50;

/**
 * Lets a POST's SSE answer reach the socket in one write instead of two. The SDK's Node adapter
 * sends the headers the moment the stream opens, and the event and the end of the body later, each
 * write its own syscall and its own wake-up of the agent's process: on loopback under load that was
 * the biggest share of the HTTP front. Here the headers wait (up to HEADER_HOLD_MS) for the first
 * event and go out with it; Node already corks the writes of one turn, so an answer that is ready at
 * once leaves as one segment. The bytes are the same; only how they are packed changes.
 */
export function coalesceAnswerWrites(response: ServerResponse): void {
  const sendHeaders = response.flushHeaders.bind(response);
  const write = response.write.bind(response) as (...args: unknown[]) => boolean;
  let held: NodeJS.Timeout | undefined;
  const release = () => {
    if (held !== undefined) clearTimeout(held);
    held = undefined;
  };
  response.flushHeaders = () => {
    held ??= setTimeout(() => {
      held = undefined;
      // Nothing was written yet (a write releases the hold); headersSent is already true after writeHead.
      if (!response.writableEnded && !response.destroyed) sendHeaders();
    }, HEADER_HOLD_MS);
  };
  response.write = ((...args: unknown[]) => {
    release();
    return write(...args);
  }) as ServerResponse['write'];
  response.once('close', release);
}
