/**
 * A 2025-era server's tools/call result is checked by the gate's client (GateClient.checkToolResult):
 * a plain text result is taken as it is, anything else by the era's own codec. Taken as it is, it
 * must be exactly what the codec would have returned, and nothing the codec refuses may pass.
 */
import { describe, expect, it } from 'vitest';
import { GateClient, isPlainTextResult } from '../../main/upstream/upstreamSession';

/** The client as the gate makes it, with the codec's own verdict in reach. */
class CodecClient extends GateClient {
  constructor() {
    super({ name: 'toolgate', version: '1' }, { capabilities: {} });
  }

  codecVerdict(raw: unknown): { ok: boolean; value?: unknown } {
    const outcome = this._wireCodec().validateResult('tools/call', raw);
    return outcome.ok ? { ok: true, value: outcome.value } : { ok: false };
  }
}

const client = new CodecClient();

const PLAIN = [
  { content: [] },
  { content: [{ type: 'text', text: 'hello' }] },
  { content: [{ type: 'text', text: '' }, { type: 'text', text: 'two' }], isError: false },
  { content: [{ type: 'text', text: '{"text":"x"}' }], structuredContent: { text: 'x', nested: { list: [1, null, 'a'] } } },
  { content: [{ type: 'text', text: 'failed' }], isError: true },
];

const NOT_PLAIN = [
  { content: [{ type: 'text', text: 5 }] },
  { content: [{ type: 'text' }] },
  { content: [{ type: 'text', text: 'a', annotations: { audience: ['user'] } }] },
  { content: [{ type: 'text', text: 'a', annotations: { audience: 'everyone' } }] },
  { content: [{ type: 'image', data: 'aGk=', mimeType: 'image/png' }] },
  { content: [{ type: 'image', data: 'not base64!', mimeType: 'image/png' }] },
  { content: 'text' },
  { content: [{ type: 'text', text: 'a' }], isError: 'yes' },
  { content: [{ type: 'text', text: 'a' }], structuredContent: [1, 2] },
  { content: [{ type: 'text', text: 'a' }], _meta: { progressToken: {} } },
  { content: [{ type: 'text', text: 'a' }], extra: 1 },
  { structuredContent: { text: 'x' } },
  { task: { taskId: 't' } },
  null,
  [],
];

describe("a tools/call result's check", () => {
  it('takes a plain text result as it is, equal to what the codec returns for it', () => {
    for (const result of PLAIN) {
      expect(isPlainTextResult(result)).toBe(true);
      expect(client.checkToolResult(result)).toEqual({ ok: true, result });
      expect(client.codecVerdict(result)).toEqual({ ok: true, value: result });
    }
  });

  it('leaves every other result to the codec, which takes what it allows and refuses the rest', () => {
    for (const result of NOT_PLAIN) {
      expect(isPlainTextResult(result)).toBe(false);
      const verdict = client.codecVerdict(result);
      const checked = client.checkToolResult(result);
      expect(checked.ok).toBe(verdict.ok);
      if (checked.ok) expect(checked.result).toEqual(verdict.value);
    }
    // The codec refuses what MCP does not allow, which the plain check must never have passed.
    expect(client.checkToolResult({ content: [{ type: 'text', text: 5 }] })).toMatchObject({ ok: false, message: expect.stringMatching(/text/) });
    expect(client.checkToolResult({ content: [{ type: 'text', text: 'a' }], isError: 'yes' })).toMatchObject({ ok: false });
  });
});
