/**
 * A call's progress reaches the gate even when it comes in the same read as the call's result: the
 * SDK clients settle a result at once and run a notification's handler a turn later, by when the
 * call has ended and its progress is dropped. The tap takes it off the wire first. Here the server's
 * end writes both in one turn, as one chunk of a pipe or a stream is read.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { ProgressTap } from '../../main/upstream/progressTap';

/** A server's end that answers initialize, and each tools/call with what `progressOf` lists and its result, all in one turn. */
async function serverEnd(transport: InMemoryTransport, progressOf: (token: unknown) => Record<string, unknown>[]): Promise<void> {
  const send = (message: Record<string, unknown>) => void transport.send({ jsonrpc: '2.0', ...message } as JSONRPCMessage);
  transport.onmessage = (message) => {
    if (!('method' in message) || !('id' in message)) return;
    if (message.method === 'initialize') {
      send({ id: message.id, result: { protocolVersion: message.params!.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'one-turn', version: '1' } } });
    } else if (message.method === 'tools/call') {
      const token = (message.params!._meta as Record<string, unknown> | undefined)?.progressToken;
      for (const params of progressOf(token)) send({ method: 'notifications/progress', params });
      send({ id: message.id, result: { content: [{ type: 'text', text: 'done' }] } });
    }
  };
  await transport.start();
}

/** A client over a tapped transport, and the server's end given `progressOf`. */
async function connected(progressOf: (token: unknown) => Record<string, unknown>[]): Promise<{ client: Client; tap: ProgressTap }> {
  const [clientEnd, server] = InMemoryTransport.createLinkedPair();
  await serverEnd(server, progressOf);
  const tap = new ProgressTap(clientEnd);
  const client = new Client({ name: 'tapped', version: '1' });
  await client.connect(clientEnd);
  return { client, tap };
}

/** Calls a tool with its progress tapped; answers what was seen, the result's text last. */
async function callSeeing(client: Client, tap: ProgressTap): Promise<string[]> {
  const seen: string[] = [];
  const tapped = tap.watch((progress) => seen.push(JSON.stringify(progress)));
  try {
    const result = await client.callTool({ name: 'work', arguments: {}, _meta: tapped.meta }, undefined, { onprogress: () => {} });
    seen.push((result.content as { text: string }[])[0]!.text);
  } finally {
    tapped.end();
  }
  return seen;
}

describe("a call's progress, tapped", () => {
  it('passes on every step sent in the same turn as the result, in order, before the result', async () => {
    const { client, tap } = await connected((progressToken) => [
      { progressToken, progress: 1, total: 2, message: 'step 1' },
      { progressToken, progress: 2, total: 2, message: 'step 2' },
    ]);
    for (let call = 0; call < 3; call++) {
      expect(await callSeeing(client, tap)).toEqual(['{"progress":1,"total":2,"message":"step 1"}', '{"progress":2,"total":2,"message":"step 2"}', 'done']);
    }
    await client.close();
  });

  it("passes on no progress MCP does not allow, and none of another request's token", async () => {
    const { client, tap } = await connected((progressToken) => [
      { progressToken, progress: 'half' },
      { progressToken, progress: 1, total: '2' },
      { progressToken: 'someone-else', progress: 1 },
      { progressToken, progress: 2 },
    ]);
    expect(await callSeeing(client, tap)).toEqual(['{"progress":2}', 'done']);
    await client.close();
  });
});
