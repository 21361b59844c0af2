/**
 * An agent's kept-alive connection outlives a gate that was busy. The gate tells clients to keep an
 * idle connection 5 s (Keep-Alive: timeout=5; fetch keeps it 3 to 4 s). When the gate's thread was
 * held past that, a request the agent sent on the connection meanwhile waits unread while the gate
 * catches up on its timers: if the connection's idle timer ran out first, the gate closed it under
 * the request and the agent's call failed with ECONNRESET. The gate and the agent share one thread
 * here, so holding it holds both, as a loaded machine did to a CI run.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { connectMcp, startTestGate, textOf, type TestGate } from './helpers';

let gate: TestGate;
let agent: Client;

beforeAll(async () => {
  gate = await startTestGate();
  agent = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterAll(async () => {
  await agent?.close();
  await gate?.close();
});

/** Holds this thread, gate and agent alike, for `ms` (nothing else runs meanwhile). */
function holdThread(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

it('a call sent on a kept-alive connection after the gate was held past its keep-alive is answered', async () => {
  expect(textOf(await agent.callTool({ name: 'echo', arguments: { text: 'before' } }))).toContain('before');
  // Past the 5 s the gate advertises and the second Node adds to it.
  holdThread(7_000);
  // Sent before the thread turns to its timers: the connection is still the agent's to use.
  const after = agent.callTool({ name: 'echo', arguments: { text: 'after' } });
  expect(textOf(await after)).toContain('after');
});
