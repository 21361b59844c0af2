import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { plainToolCall } from '../../main/mcp/directToolCall';

/** A POST's headers as an established session's client sends them. */
function post(headers: Record<string, string> = {}): IncomingMessage {
  return { headers: { accept: 'application/json, text/event-stream', 'content-type': 'application/json', 'mcp-protocol-version': '2025-06-18', ...headers } } as unknown as IncomingMessage;
}

const call = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } };

describe('which tools/call the gate answers itself', () => {
  it('takes a plain call, with or without arguments, _meta or a protocol version header', () => {
    expect(plainToolCall(post(), call)).toEqual({ id: 3, params: { name: 'echo', arguments: { text: 'hi' } } });
    expect(plainToolCall(post(), { ...call, id: 'a', params: { name: 'echo', _meta: { progressToken: 1 } } })).toEqual({ id: 'a', params: { name: 'echo', _meta: { progressToken: 1 } } });
    const noVersion = post();
    delete noVersion.headers['mcp-protocol-version'];
    expect(plainToolCall(noVersion, call)).toBeDefined();
    expect(plainToolCall(post({ 'content-type': 'Application/JSON; charset=utf-8' }), call)).toBeDefined();
  });

  it('leaves to the SDK whatever MCP gives more meaning to, or its transport questions', () => {
    const left: Array<[string, IncomingMessage, unknown]> = [
      ['a batch', post(), [call]],
      ['another method', post(), { ...call, method: 'tools/list' }],
      ['a call asking for a task', post(), { ...call, params: { ...call.params, task: { ttl: 1000 } } }],
      ['a key MCP does not name', post(), { ...call, extra: true }],
      ['arguments that are not an object', post(), { ...call, params: { name: 'echo', arguments: ['hi'] } }],
      ['a name that is not a string', post(), { ...call, params: { name: 7 } }],
      ['_meta that is not an object', post(), { ...call, params: { name: 'echo', _meta: 'x' } }],
      ['a fractional id', post(), { ...call, id: 1.5 }],
      ['no id (a notification)', post(), { jsonrpc: '2.0', method: 'tools/call', params: call.params }],
      ['another JSON-RPC version', post(), { ...call, jsonrpc: '1.0' }],
      ['an Accept without SSE', post({ accept: 'application/json' }), call],
      ['a body typed as text', post({ 'content-type': 'text/plain; a=application/json' }), call],
      ['an unknown protocol version', post({ 'mcp-protocol-version': '1999-01-01' }), call],
    ];
    for (const [what, request, body] of left) expect({ what, call: plainToolCall(request, body) }).toEqual({ what, call: undefined });
  });
});
