/**
 * The gate's own tools/call on a 2025-era stdio server's pipe (directUpstreamCall.ts), against a
 * transport the test plays the server on: its answers reach only the call they name, everything
 * else reaches the client as before, and no answer, check or close leaves a call waiting forever.
 */
import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/client';
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { describe, expect, it } from 'vitest';
import { DirectToolCalls, type ToolResultCheck } from '../../main/upstream/directUpstreamCall';
import { WAIT_MS } from '../fixtures/processes';

/** A transport whose sent messages the test reads, and on which it delivers the server's. */
function playedTransport(): { transport: Transport; sent: JSONRPCMessage[]; toClient: JSONRPCMessage[]; deliver(message: JSONRPCMessage): void; close(): void } {
  const sent: JSONRPCMessage[] = [];
  const toClient: JSONRPCMessage[] = [];
  const transport: Transport = {
    start: async () => {},
    close: async () => {},
    send: async (message) => void sent.push(message),
  };
  // What the client installs on connect(): its own handlers.
  transport.onmessage = (message) => toClient.push(message);
  transport.onclose = () => {};
  return { transport, sent, toClient, deliver: (message) => transport.onmessage?.(message), close: () => transport.onclose?.() };
}

const acceptAll: ToolResultCheck = (raw) => ({ ok: true, result: raw as never });

describe("the gate's own tools/call", () => {
  it("takes its answer off the pipe, and leaves the client every other message and no answer to a call it never made", async () => {
    const played = playedTransport();
    const calls = new DirectToolCalls(played.transport, acceptAll);
    const pending = calls.call({ name: 'echo', arguments: { text: 'hi' } }, { timeoutMs: WAIT_MS });
    const { id } = played.sent[0] as { id: string };
    played.deliver({ jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'log' } });
    played.deliver({ jsonrpc: '2.0', id: 7, result: {} });
    played.deliver({ jsonrpc: '2.0', id: `${id}0`, result: { content: [{ type: 'text', text: 'not yours' }] } });
    played.deliver({ jsonrpc: '2.0', id, result: { content: [{ type: 'text', text: 'yours' }] } });
    await expect(pending).resolves.toEqual({ content: [{ type: 'text', text: 'yours' }] });
    expect(played.toClient).toEqual([
      { jsonrpc: '2.0', method: 'notifications/message', params: { level: 'info', data: 'log' } },
      { jsonrpc: '2.0', id: 7, result: {} },
    ]);
  });

  it('fails a call whose result check throws, instead of leaving it waiting', async () => {
    const played = playedTransport();
    const calls = new DirectToolCalls(played.transport, () => {
      throw new Error('the check broke');
    });
    const pending = calls.call({ name: 'echo', arguments: {} }, { timeoutMs: WAIT_MS });
    played.deliver({ jsonrpc: '2.0', id: (played.sent[0] as { id: string }).id, result: { content: [] } });
    await expect(pending).rejects.toMatchObject({ code: SdkErrorCode.InvalidResult, message: expect.stringMatching(/the check broke/) });
  });

  it('fails every waiting call as the connection closing, and any later one at once', async () => {
    const played = playedTransport();
    const calls = new DirectToolCalls(played.transport, acceptAll);
    const waiting = [calls.call({ name: 'a', arguments: {} }, { timeoutMs: WAIT_MS }), calls.call({ name: 'b', arguments: {} }, { timeoutMs: WAIT_MS })];
    played.close();
    for (const call of waiting) await expect(call).rejects.toSatisfy((error) => error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed);
    await expect(calls.call({ name: 'c', arguments: {} }, { timeoutMs: WAIT_MS })).rejects.toMatchObject({ code: SdkErrorCode.ConnectionClosed });
  });
});
