import { describe, expect, it } from 'vitest';
import type { ToolResult } from '../../shared/result';
import { INVALID_PARAMS, UNKNOWN_TOOL_MESSAGE_CHARS, unknownToolError } from '../../main/mcp/callToolResult';

const META = { callId: 'call-1', startedAt: '2026-01-01T00:00:00.000Z', endedAt: '2026-01-01T00:00:00.001Z', durationMs: 1, responseHash: 'h' };

/** The lookup step's refusal of an unknown tool on a gate with these tools, as the pipeline answers it. */
function lookupRefusal(known: string[]): ToolResult {
  return {
    ok: false,
    error: { code: 'ENOTFOUND', message: `no tool named "nope"; the tools are: ${known.join(', ')}`, details: { tool: 'nope', known } },
    meta: META,
  };
}

describe('the JSON-RPC error for an unknown tool', () => {
  it('is invalid params, naming every tool when they fit, with the call id for the audit', () => {
    const error = unknownToolError(lookupRefusal(['echo', 'read_file']))!;
    expect(error.code).toBe(INVALID_PARAMS);
    expect(error.message).toBe('ENOTFOUND: no tool named "nope"; the tools are: echo, read_file');
    expect(error.data).toEqual({ 'toolgate/callId': 'call-1', 'toolgate/errorCode': 'ENOTFOUND' });
  });

  it('on a gate with very many tools, is cut at the end of a name and says how many more tools/list names', () => {
    const known = Array.from({ length: 500 }, (_, index) => `github__tool_number_${index}`);
    const { message } = unknownToolError(lookupRefusal(known))!;
    expect(message.length).toBeLessThanOrEqual(UNKNOWN_TOOL_MESSAGE_CHARS);
    const match = /the tools are: (.*), … and (\d+) more \(tools\/list names them all\)$/.exec(message);
    expect(match).not.toBeNull();
    const shown = match![1]!.split(', ');
    expect(shown).toEqual(known.slice(0, shown.length));
    expect(shown.length + Number(match![2])).toBe(known.length);
  });

  it('is not made for any other refusal: a tool that exists but failed stays a tool result', () => {
    expect(unknownToolError({ ok: false, error: { code: 'ENOTFOUND', message: 'no such file' }, meta: META })).toBeUndefined();
    expect(unknownToolError({ ok: false, error: { code: 'EDENIED', message: 'denied', details: { known: [] } }, meta: META })).toBeUndefined();
    expect(unknownToolError({ ok: true, data: {}, meta: META })).toBeUndefined();
  });
});
