import { ProtocolError, SdkError, SdkErrorCode, type CallToolResult, type JSONRPCMessage, type Transport } from '@modelcontextprotocol/client';
import { isJsonObject } from '../../shared/jsonLimits';
import { progressOf, type Progress } from './progressThrottle';

/**
 * A 2025-era stdio server's tools/call written on its pipe by the gate itself, instead of through
 * the SDK client's request path. That path builds an envelope, a timeout entry, a progress entry
 * and an abort listener per request, and to pick the result's schema it validates `undefined`
 * against it and formats the zod error it gets, on every call; on the gateway's hot path that was
 * a fifth of what a call cost the gate beyond the plain proxies. Here the request is one line, its
 * answer is taken off the pipe before the client sees it, and the result is checked by the
 * negotiated era's own codec, as the client checks it. The client still handles everything else
 * the server sends (log lines, list changes, its requests), and the other transports and eras.
 */

/** Ids of the gate's own requests: strings, so they never meet the client's numeric ids on the same pipe. */
const ID_PREFIX = 'toolgate-call-';

/** The negotiated era's check of a tools/call result (see GateClient.checkToolResult). */
export type ToolResultCheck = (raw: unknown) => { ok: true; result: CallToolResult } | { ok: false; message: string };

export interface DirectCallOptions {
  signal?: AbortSignal;
  timeoutMs: number;
  onProgress?: ((progress: Progress) => void) | undefined;
}

interface PendingCall {
  settle(outcome: { result: unknown } | { error: Error }): void;
  onProgress: ((progress: Progress) => void) | undefined;
}

export class DirectToolCalls {
  private readonly pending = new Map<string, PendingCall>();
  private nextId = 0;
  private closed = false;

  /**
   * Installed once the client is connected: the client's own handlers (which it put on the
   * transport in connect()) are kept and hear every message that is not an answer to these calls.
   */
  constructor(
    private readonly transport: Transport,
    private readonly checkResult: ToolResultCheck,
  ) {
    const clientMessage = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (!this.take(message)) clientMessage?.(message, extra);
    };
    const clientClose = transport.onclose;
    transport.onclose = () => {
      try {
        clientClose?.();
      } finally {
        this.closeAll();
      }
    };
  }

  /**
   * Sends one tools/call and resolves with its checked result. Rejects as the SDK's request does,
   * so a failure is told the same way: ConnectionClosed when the server went away, RequestTimeout
   * past `timeoutMs` or when the signal withdrew the call (the server is sent notifications/cancelled
   * then), a ProtocolError for its error answer, InvalidResult for a result MCP does not allow.
   */
  call(params: { name: string; arguments: Record<string, unknown> }, options: DirectCallOptions): Promise<CallToolResult> {
    if (this.closed) return Promise.reject(new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed'));
    const { signal } = options;
    if (signal?.aborted) return Promise.reject(new SdkError(SdkErrorCode.RequestTimeout, String(signal.reason)));
    const id = `${ID_PREFIX}${++this.nextId}`;
    return new Promise<CallToolResult>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const cancel = (reason: unknown) => {
        this.transport.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: id, reason: String(reason) } }).catch(() => {});
      };
      const onAbort = () => {
        cancel(signal?.reason);
        call.settle({ error: new SdkError(SdkErrorCode.RequestTimeout, String(signal?.reason)) });
      };
      const call: PendingCall = {
        settle: (outcome) => {
          if (!this.pending.delete(id)) return;
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          if ('error' in outcome) return reject(outcome.error);
          let checked: ReturnType<ToolResultCheck>;
          try {
            checked = this.checkResult(outcome.result);
          } catch (error) {
            checked = { ok: false, message: error instanceof Error ? error.message : String(error) };
          }
          if (checked.ok) resolve(checked.result);
          else reject(new SdkError(SdkErrorCode.InvalidResult, `Invalid result for tools/call: ${checked.message}`));
        },
        onProgress: options.onProgress,
      };
      this.pending.set(id, call);
      timer = setTimeout(() => {
        const error = new SdkError(SdkErrorCode.RequestTimeout, 'Request timed out', { timeout: options.timeoutMs });
        cancel(error);
        call.settle({ error });
      }, options.timeoutMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      const request = {
        jsonrpc: '2.0' as const,
        id,
        method: 'tools/call',
        params: options.onProgress ? { ...params, _meta: { progressToken: id } } : params,
      };
      this.transport.send(request).catch((error: unknown) => call.settle({ error: error instanceof Error ? error : new Error(String(error)) }));
    });
  }

  /** Whether the message was one of these calls' (an answer, or its progress), taken here. */
  private take(message: JSONRPCMessage): boolean {
    if ('id' in message && !('method' in message)) {
      if (typeof message.id !== 'string' || !message.id.startsWith(ID_PREFIX)) return false;
      // An answer that came after its call timed out or was withdrawn is dropped here too.
      const call = this.pending.get(message.id);
      if (!call) return true;
      call.settle(answerOf(message));
      return true;
    }
    if (!('method' in message) || message.method !== 'notifications/progress' || !isJsonObject(message.params)) return false;
    const { progressToken } = message.params;
    if (typeof progressToken !== 'string' || !progressToken.startsWith(ID_PREFIX)) return false;
    const call = this.pending.get(progressToken);
    const progress = progressOf(message.params);
    if (call?.onProgress && progress) call.onProgress(progress);
    return true;
  }

  /** The connection closed: every call waiting fails as the client's own requests do. */
  private closeAll(): void {
    this.closed = true;
    for (const call of [...this.pending.values()]) call.settle({ error: new SdkError(SdkErrorCode.ConnectionClosed, 'Connection closed') });
  }
}

/** A call's outcome from its answer: the result (checked by the caller), or the error MCP lets a server answer with. */
function answerOf(message: Record<string, unknown>): { result: unknown } | { error: Error } {
  if ('result' in message) return { result: message.result };
  const { error } = message;
  if (isJsonObject(error) && Number.isSafeInteger(error.code) && typeof error.message === 'string') {
    return { error: ProtocolError.fromError(error.code as number, error.message, error.data) };
  }
  return { error: new SdkError(SdkErrorCode.InvalidResult, 'Invalid result for tools/call: an answer with neither a result nor an error of a code and a message') };
}
