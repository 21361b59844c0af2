import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CallSnapshot } from '../../shared/call';
import { openGate, type Harness } from './gateHarness';
import { waitUntil } from '../fixtures/processes';

const OUTPUT_TOOLS = resolve(__dirname, '../fixtures/tools/outputs.mjs');
/** Control characters a terminal would act on (tab and newline excepted). */
const LIVE_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('text from tools is made inert before the console shows it', () => {
  it('shows escape sequences in a tool error and its log lines as text, never as control characters', async () => {
    const lines: string[] = [];
    harness = await openGate({ toolModules: [OUTPUT_TOOLS], onToolLog: (_callId, _stream, line) => lines.push(line) });
    const snapshots: CallSnapshot[] = [];
    harness.gate.events.subscribe('callUpdated', (snapshot) => snapshots.push(snapshot));

    const failed = await harness.gate.executor.call({ tool: 'control_chars', arguments: { channel: 'error' }, source: 'test' });
    expect(failed.ok).toBe(false);
    const shown = snapshots.filter((snapshot) => snapshot.callId === failed.meta.callId).at(-1)!;
    expect(shown.error?.message).toContain('\\x1b[31mred\\x1b[0m');
    expect(shown.error?.message).not.toMatch(LIVE_CONTROL);

    await harness.gate.executor.call({ tool: 'control_chars', arguments: { channel: 'stdout' }, source: 'test' });
    await waitUntil(() => lines.some((line) => line.includes('red')), 'the log line');
    const logged = lines.find((line) => line.includes('red'))!;
    expect(logged).toContain('\\x1b]0;title\\x07');
    expect(logged).not.toMatch(LIVE_CONTROL);
  });

  it('turns invalid UTF-8 on stdout and lone surrogates in results into U+FFFD', async () => {
    const lines: string[] = [];
    harness = await openGate({ toolModules: [OUTPUT_TOOLS], onToolLog: (_callId, _stream, line) => lines.push(line) });
    const result = await harness.gate.executor.call({ tool: 'broken_text', arguments: {}, source: 'test' });
    expect(result.data).toEqual({ text: 'half \ufffd a pair' });
    await waitUntil(() => lines.some((line) => line.startsWith('bad')), 'the log line');
    expect(lines.find((line) => line.startsWith('bad'))).toBe('bad \ufffd\ufffd\ufffd');
  });
});
