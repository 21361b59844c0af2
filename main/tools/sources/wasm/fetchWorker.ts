/**
 * The worker thread behind a WASM tool's `http_fetch` host call. WebAssembly calls its host
 * synchronously, and a fetch is asynchronous: the tool process's thread posts the request here and
 * waits on a shared flag (Atomics.wait) while this thread fetches with http_fetch's own code
 * (fetchWithin: public addresses only unless named, same-host redirects, byte caps, one deadline).
 */
import { parentPort } from 'node:worker_threads';
import type { MessagePort } from 'node:worker_threads';
import { GateError } from '../../../../shared/errors';
import { fetchWithin } from '../../httpFetch';
import { parseFetchUrl } from '../../netAccess';

/** One request from the tool process's thread. */
export interface FetchRequest {
  url: string;
  maxBytes: number;
  /** Set to 1 and notified when the answer is on `port`. */
  flag: Int32Array;
  port: MessagePort;
}

/** The answer: http_fetch's result, or the error that ended the fetch. */
export type FetchAnswer = { ok: true; result: unknown } | { ok: false; code: string; message: string };

async function answer(request: FetchRequest): Promise<FetchAnswer> {
  try {
    return { ok: true, result: await fetchWithin(parseFetchUrl(request.url), 'GET', request.maxBytes) };
  } catch (error) {
    if (error instanceof GateError) return { ok: false, code: error.code, message: error.message };
    return { ok: false, code: 'ERUNTIME', message: `the fetch of ${request.url} failed: ${(error as Error).message}` };
  }
}

parentPort?.on('message', (request: FetchRequest) => {
  void answer(request).then((reply) => {
    try {
      request.port.postMessage(reply);
    } finally {
      request.port.close();
      Atomics.store(request.flag, 0, 1);
      Atomics.notify(request.flag, 0);
    }
  });
});
