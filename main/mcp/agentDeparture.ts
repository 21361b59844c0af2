import type { ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isJsonObject } from '../../shared/jsonLimits';
import { agentLeftReason } from '../approvals/agentLeft';

/** A JSON-RPC request id, as the SDK keys the requests it is handling. */
type RequestId = string | number;

/** The ids of the requests (not notifications or responses) in a POST body: one message or a batch. */
export function requestIdsOf(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  return messages.flatMap((message) =>
    isJsonObject(message) && typeof message.method === 'string' && (typeof message.id === 'string' || typeof message.id === 'number') ? [message.id] : [],
  );
}

/**
 * Withdraws requests of a session whose agent is gone, by the path an agent's own cancel takes: a
 * `notifications/cancelled` handed to the session's server, whose reason says the agent left. The
 * request's signal then withdraws its prompt (naming that reason) or stops its running tool.
 * Requests already answered are not found, and nothing happens to them.
 */
export function cancelAsLeft(transport: Transport, requestIds: Iterable<RequestId>, how: string): void {
  const reason = agentLeftReason(how);
  for (const requestId of requestIds) {
    transport.onmessage?.({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason } });
  }
}

/**
 * The requests of one 2025 session still being answered, by the POST whose response stream carries
 * their answers. That stream closing before the answers were written is the agent leaving (no
 * answer can reach it: the gate keeps no stream to resume), and so is the session's DELETE.
 */
export class OpenRequests {
  private readonly byResponse = new Map<ServerResponse, RequestId[]>();

  constructor(private readonly transport: Transport) {}

  /**
   * Watches one POST: its requests are withdrawn if its response closes unfinished. False when it
   * closed already (the agent left while its body was read): then nothing of it is to be served.
   */
  watch(response: ServerResponse, body: unknown): boolean {
    if (response.destroyed) return false;
    const ids = requestIdsOf(body);
    if (ids.length === 0) return true;
    this.byResponse.set(response, ids);
    response.once('close', () => {
      this.byResponse.delete(response);
      if (!response.writableFinished) cancelAsLeft(this.transport, ids, 'its connection to the gate closed before the answer');
    });
    return true;
  }

  /** The agent ended its session: every request still being answered is withdrawn. */
  sessionEnded(): void {
    const ids = [...this.byResponse.values()].flat();
    this.byResponse.clear();
    cancelAsLeft(this.transport, ids, 'it ended its MCP session');
  }
}
