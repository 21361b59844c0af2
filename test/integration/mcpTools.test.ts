/**
 * An agent's view of the gate: the official MCP client over Streamable HTTP against startGate(),
 * listing tools, calling them, and being refused for unknown tools, bad arguments and paths that
 * leave the workspace.
 */
import { existsSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { auditKinds, callIdOf, connectMcp, startTestGate, textOf, type TestGate } from './helpers';

let gate: TestGate;
let client: Client;

beforeEach(async () => {
  gate = await startTestGate();
  client = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterEach(async () => {
  await client?.close();
  await gate?.close();
});

describe('tools/list', () => {
  it('lists the built-in tools with their input schemas', async () => {
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    expect([...byName.keys()].sort()).toEqual(['calculator', 'delete_path', 'echo', 'edit_file', 'hash', 'http_fetch', 'list_dir', 'memory_delete', 'memory_list', 'memory_search', 'memory_store', 'read_file', 'search_files', 'shell_exec', 'write_file']);
    expect(byName.get('echo')!.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    expect(byName.get('write_file')!.inputSchema).toMatchObject({
      type: 'object',
      properties: { path: { type: 'string' }, content: { type: 'string' } },
    });
    expect(byName.get('read_file')!.inputSchema.properties).toHaveProperty('path');
    expect(byName.get('list_dir')!.inputSchema.properties).toHaveProperty('path');
    expect(byName.get('hash')!.inputSchema.properties).toHaveProperty('text');
    expect(byName.get('write_file')!.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('read_file')!.annotations).toMatchObject({ readOnlyHint: true });
  });
});

describe('tools/call', () => {
  it('echo returns the text in content and structuredContent, with a response hash', async () => {
    const result = await client.callTool({ name: 'echo', arguments: { text: 'héllo, gate' } });
    expect(result.isError).toBe(false);
    expect(textOf(result)).toContain('héllo, gate');
    expect(result.structuredContent).toEqual({ text: 'héllo, gate' });
    expect(result._meta?.['toolgate/responseHash']).toMatch(/^[0-9a-f]{64}$/);
    const kinds = auditKinds(gate.running.gate.audit.forCall(callIdOf(result)));
    expect(kinds[0]).toBe('invoked');
    expect(kinds).toContain('started');
    expect(kinds.at(-1)).toBe('completed');
    expect(gate.running.gate.audit.forCall(callIdOf(result)).at(-1)!.payload).toMatchObject({
      responseHash: result._meta?.['toolgate/responseHash'],
    });
  });

  it('hash returns the BLAKE3 digest of the text', async () => {
    const result = await client.callTool({ name: 'hash', arguments: { text: 'abc' } });
    expect(result.isError).toBe(false);
    // BLAKE3("abc") from the reference test vectors
    expect(result.structuredContent).toEqual({
      algorithm: 'blake3',
      hex: '6437b3ac38465133ffb63b75273a8db548c558465d79db03fd359c6cd5bd9d85',
    });
  });

  it('list_dir and read_file see the files in the workspace', async () => {
    writeFileSync(join(gate.dirs.workspace, 'notes.txt'), 'line one\n');
    const listing = await client.callTool({ name: 'list_dir', arguments: {} });
    expect(listing.structuredContent).toMatchObject({ entries: [{ name: 'notes.txt', type: 'file' }] });
    const read = await client.callTool({ name: 'read_file', arguments: { path: 'notes.txt' } });
    expect(read.isError).toBe(false);
    expect(read.structuredContent).toMatchObject({ path: 'notes.txt', content: 'line one\n', bytes: 9 });
  });

  it('an unknown tool is a JSON-RPC error (invalid params) naming the tools, and is audited as rejected', async () => {
    const refused = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(
      () => undefined,
      (error: McpError) => error,
    );
    expect(refused).toBeInstanceOf(McpError);
    expect(refused!.code).toBe(ErrorCode.InvalidParams);
    expect(refused!.message).toContain('no tool named "no_such_tool"');
    const callId = (refused!.data as Record<string, string>)['toolgate/callId']!;
    expect(auditKinds(gate.running.gate.audit.forCall(callId))).toEqual(['invoked', 'rejected']);
  });

  it('arguments that break the schema are refused naming the field, and never run', async () => {
    const wrongType = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    expect(wrongType.isError).toBe(true);
    expect(textOf(wrongType)).toMatch(/^EVALIDATION/);
    expect(textOf(wrongType)).toMatch(/\btext\b.*string/);
    const missing = await client.callTool({ name: 'read_file', arguments: {} });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toMatch(/EVALIDATION.*\bpath\b/);
    const extra = await client.callTool({ name: 'echo', arguments: { text: 'x', sneaky: true } });
    expect(extra.isError).toBe(true);
    expect(textOf(extra)).toContain('sneaky');
    for (const result of [wrongType, missing, extra]) {
      expect(auditKinds(gate.running.gate.audit.forCall(callIdOf(result)))).toEqual(['invoked', 'rejected']);
    }
  });
});

describe('workspace confinement', () => {
  it('refuses paths that climb out or are absolute, without reading them', async () => {
    writeFileSync(join(gate.dirs.outside, 'secret.txt'), 'TOP-SECRET-OUTSIDE');
    for (const path of ['../outside/secret.txt', join(gate.dirs.outside, 'secret.txt'), '/etc/passwd']) {
      const result = await client.callTool({ name: 'read_file', arguments: { path } });
      expect(result.isError, path).toBe(true);
      expect(textOf(result), path).toMatch(/^EPERMISSION/);
      expect(textOf(result)).not.toContain('TOP-SECRET-OUTSIDE');
      expect(textOf(result)).not.toContain('root:');
      const records = gate.running.gate.audit.forCall(callIdOf(result));
      expect(auditKinds(records)).toEqual(['invoked', 'capability', 'rejected']);
      expect(records[1]!.payload).toMatchObject({ allowed: false, error: { code: 'EPERMISSION' } });
    }
  });

  it('refuses reads through a symlink planted inside the workspace that points outside', async () => {
    writeFileSync(join(gate.dirs.outside, 'secret.txt'), 'TOP-SECRET-OUTSIDE');
    symlinkSync('/etc', join(gate.dirs.workspace, 'out'));
    symlinkSync(gate.dirs.outside, join(gate.dirs.workspace, 'shared'));
    symlinkSync(join(gate.dirs.outside, 'secret.txt'), join(gate.dirs.workspace, 'innocent.txt'));
    for (const path of ['out/passwd', 'shared/secret.txt', 'innocent.txt']) {
      const result = await client.callTool({ name: 'read_file', arguments: { path } });
      expect(result.isError, path).toBe(true);
      expect(textOf(result), path).toMatch(/^EPERMISSION.*symlink/);
      expect(textOf(result)).not.toContain('TOP-SECRET-OUTSIDE');
      expect(textOf(result)).not.toContain('root:');
      expect(auditKinds(gate.running.gate.audit.forCall(callIdOf(result)))).toEqual(['invoked', 'capability', 'rejected']);
    }
    const listing = await client.callTool({ name: 'list_dir', arguments: { path: 'shared' } });
    expect(listing.isError).toBe(true);
    expect(textOf(listing)).toMatch(/^EPERMISSION/);
  });

  it('refuses writes through a symlinked directory before anyone is asked, writing nothing outside', async () => {
    symlinkSync(gate.dirs.outside, join(gate.dirs.workspace, 'linkdir'));
    let prompts = 0;
    const unsubscribe = gate.running.backend.subscribe('approvalRequested', () => prompts++);
    const attempts = [
      { path: 'linkdir/pwned.txt', content: 'owned' },
      { path: 'linkdir/deeper/pwned.txt', content: 'owned' },
      { path: '../outside/pwned.txt', content: 'owned' },
    ];
    for (const args of attempts) {
      const result = await client.callTool({ name: 'write_file', arguments: args });
      expect(result.isError, args.path).toBe(true);
      expect(textOf(result), args.path).toMatch(/^EPERMISSION/);
      const kinds = auditKinds(gate.running.gate.audit.forCall(callIdOf(result)));
      expect(kinds).toEqual(['invoked', 'capability', 'rejected']);
    }
    unsubscribe();
    expect(prompts).toBe(0);
    expect(readdirSync(gate.dirs.outside)).toEqual([]);
    expect(existsSync(join(gate.dirs.outside, 'deeper'))).toBe(false);
  });
});
