import { MessageChannel, Worker, receiveMessageOnPort } from 'node:worker_threads';
import { ErrorCodeSchema, GateError } from '../../../../shared/errors';
import { builtAssets } from '../../../state/paths';
import { canonicalHost, effectivePort, parseFetchUrl } from '../../netAccess';
import type { FetchAnswer } from './fetchWorker';

/** Body bytes one host fetch reads, as http_fetch's default. */
const MAX_FETCH_BYTES = 1024 * 1024;
/** Longer than fetchWithin's own 20 s deadline, so the fetch ends in its own error first. */
const WAIT_MS = 25_000;

/** What the network host call knows of the call it serves. */
export interface NetCallScope {
  tool: string;
  /** The input fields the manifest names as URLs (its urlArguments). */
  urlArguments: readonly string[];
  input: unknown;
}

let worker: Worker | undefined;

/** The fetch worker, started at the first host fetch of this tool process and kept for the next. */
function fetchWorker(): Worker {
  if (!worker) {
    worker = new Worker(builtAssets().wasmFetchWorker);
    // An idle worker must not keep the tool process alive.
    worker.unref();
    worker.on('error', () => (worker = undefined));
  }
  return worker;
}

/**
 * The `http_fetch` host call: a GET with http_fetch's own code, to the host and port of a URL the
 * call's arguments name (the manifest's urlArguments), which the gate checked against the net grants
 * before the call ran, as it does for http_fetch. Any other host or port is refused (EPERMISSION):
 * the tool process does not know the gate's grants, so it holds to what the gate judged.
 */
export class WasmNetCalls {
  constructor(private readonly scope: NetCallScope) {}

  /** http_fetch's result for `raw` as JSON text (status, url, contentType, content, …). */
  fetch(raw: string): string {
    const url = parseFetchUrl(raw);
    const where = `${canonicalHost(url.hostname)}:${effectivePort(url)}`;
    if (!this.namedHosts().includes(where)) {
      const fields = this.scope.urlArguments.length > 0 ? this.scope.urlArguments.join(', ') : 'none: the manifest declares no urlArguments';
      throw new GateError(
        'EPERMISSION',
        `${this.scope.tool} may fetch only from the hosts and ports its call's arguments name (${fields}), which the gate checked against its grants; ${where} is not one of them`,
        { url: raw },
      );
    }
    return JSON.stringify(fetchSynchronously(url.href));
  }

  private namedHosts(): string[] {
    const input = (this.scope.input ?? {}) as Record<string, unknown>;
    return this.scope.urlArguments.flatMap((field) => {
      const value = input[field];
      if (typeof value !== 'string') return [];
      const url = parseFetchUrl(value);
      return [`${canonicalHost(url.hostname)}:${effectivePort(url)}`];
    });
  }
}

/** Runs fetchWithin on the worker and blocks this thread until it answers. */
function fetchSynchronously(url: string): unknown {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  try {
    fetchWorker().postMessage({ url, maxBytes: MAX_FETCH_BYTES, flag, port: port2 }, [port2]);
    if (Atomics.wait(flag, 0, 0, WAIT_MS) === 'timed-out') throw new GateError('ETIMEOUT', `the fetch of ${url} did not answer within ${WAIT_MS / 1000} s`);
    const answer = receiveMessageOnPort(port1)?.message as FetchAnswer | undefined;
    if (!answer) throw new GateError('ERUNTIME', `the fetch of ${url} gave no answer`);
    if (answer.ok) return answer.result;
    const code = ErrorCodeSchema.safeParse(answer.code);
    throw new GateError(code.success ? code.data : 'ERUNTIME', answer.message);
  } finally {
    port1.close();
  }
}
