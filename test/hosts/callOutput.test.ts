import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EnvironmentSecretProvider } from '../../main/secrets/secretProvider';
import { openGate, type Harness } from '../executor/gateHarness';
import { waitUntil } from '../fixtures/processes';

const STREAMING_TOOLS = resolve(__dirname, '../fixtures/tools/streaming.mjs');
const SECRET = 'hunter2-Sw0rdf1sh';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('streamed output (context.emit → callOutput)', () => {
  it('reaches the console while the call runs, in order, before the result, with secrets redacted', async () => {
    harness = await openGate({ toolModules: [STREAMING_TOOLS], secrets: new EnvironmentSecretProvider({ SECRET }) });
    const { gate } = harness;
    const chunks: Array<{ callId: string; chunk: string }> = [];
    gate.events.subscribe('callOutput', ({ callId, chunk }) => chunks.push({ callId, chunk }));
    // A call that receives a secret asks a person first.
    gate.events.subscribe('approvalRequested', (request) => gate.approvals.decide(request.approvalId, 'approve'));

    const result = await gate.executor.call({ tool: 'stream_lines', arguments: { text: 'key=$ENV.SECRET', lines: 3, gapMs: 400 } });

    expect(result.ok).toBe(true);
    const text = chunks.map((chunk) => chunk.chunk).join('');
    expect(text).toContain('\u001b[31m');
    expect(text.match(/key=\S+ \d/g)).toEqual(['key=$ENV.SECRET 1', 'key=$ENV.SECRET 2', 'key=$ENV.SECRET 3']);
    expect(text).not.toContain(SECRET);
    expect(new Set(chunks.map((chunk) => chunk.callId))).toEqual(new Set([result.meta.callId]));
    // Each line came as it was written, 400 ms apart: the first piece did not wait for the last line.
    const firstWithText = chunks.find((chunk) => chunk.chunk.includes('key='))!;
    expect(firstWithText.chunk).toContain('key=$ENV.SECRET 1');
    expect(firstWithText.chunk).not.toContain('key=$ENV.SECRET 3');
  });

  it('stopCall kills a running call: it fails with EDENIED and its process is replaced', async () => {
    harness = await openGate({ toolModules: [STREAMING_TOOLS] });
    const { gate } = harness;
    let callId: string | undefined;
    gate.events.subscribe('callOutput', (output) => (callId = output.callId));

    const pending = gate.executor.call({ tool: 'stream_forever', arguments: {} });
    await waitUntil(() => callId !== undefined, 'the call to start');
    expect(await gate.backend.handlers.stopCall({ callId: callId! })).toEqual({ stopped: true });
    const result = await pending;

    expect(result.ok).toBe(false);
    // stream_forever never ends on its own: its result is the stop's doing.
    expect(result.error?.code).toBe('EDENIED');
    expect(await gate.backend.handlers.stopCall({ callId: callId! })).toEqual({ stopped: false });
    // The pool still serves calls.
    expect((await gate.executor.call({ tool: 'stream_lines', arguments: { text: 'again', lines: 1, gapMs: 0 } })).ok).toBe(true);
  });
});
