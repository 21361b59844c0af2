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
export function fetchWithOwnSignals(base: typeof fetch = fetch): typeof fetch {
  return async (input, init) => {
    const outer = init?.signal;
    if (!outer) return base(input, init);
    const own = new AbortController();
    const forward = () => own.abort(outer.reason);
    const unlink = () => outer.removeEventListener('abort', forward);
    if (outer.aborted) forward();
    else outer.addEventListener('abort', forward, { once: true });
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
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const { done, value } = await reader.read();
          if (done) {
            unlink();
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
