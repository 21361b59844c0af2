import {
  bridgeMethods,
  type BridgeMethodName,
  type BridgeReply,
} from '../../shared/contract';
import { GateError } from '../../shared/errors';
import type { ConsoleBackend } from './consoleBackend';

function isBridgeMethod(method: unknown): method is BridgeMethodName {
  return typeof method === 'string' && Object.hasOwn(bridgeMethods, method);
}

/**
 * Runs one console request: checks the method exists, validates the request against the contract,
 * calls the handler and validates its response. Never throws: every failure becomes a reply the
 * console can show.
 */
export async function dispatchBridgeRequest(
  backend: ConsoleBackend,
  method: unknown,
  params: unknown,
): Promise<BridgeReply<unknown>> {
  if (!isBridgeMethod(method)) {
    return { ok: false, error: { code: 'EBRIDGE', message: `unknown console method ${JSON.stringify(method)}` } };
  }
  const spec = bridgeMethods[method];
  const parsed = spec.request.safeParse(params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? issue.path.join('.') : 'request';
    return {
      ok: false,
      error: { code: 'EVALIDATION', message: `${method}: ${where}: ${issue?.message ?? 'invalid request'}` },
    };
  }
  try {
    const handler = backend.handlers[method] as (request: unknown) => Promise<unknown>;
    const value = spec.response.parse(await handler(parsed.data));
    return { ok: true, value };
  } catch (error) {
    if (error instanceof GateError) return { ok: false, error: { code: error.code, message: error.message } };
    return { ok: false, error: { code: 'ERUNTIME', message: `${method} failed: ${(error as Error).message}` } };
  }
}
