/**
 * A hostile agent against manifest tools, through the official MCP client and a real gate: fields
 * that only together with the template's own text (or another field) make an option of a program's
 * argument or a `.` or `..` segment of an HTTP tool's path are refused before anything runs or goes out.
 */
import { chmodSync, existsSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { connectMcp, makeTempDirs, readToken, textOf, type TempDirs, approveEveryPrompt } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let service: Server;
let port: number;
const paths: string[] = [];
let dirs: TempDirs;
let gate: RunningGate;
let agent: Client;

const twoFields = { type: 'object', properties: { first: { type: 'string' }, second: { type: 'string' } }, required: ['first', 'second'], additionalProperties: false };

function manifest(name: string, fields: Record<string, unknown>): string {
  const path = join(dirs.outside, `${name}.json`);
  writeFileSync(path, JSON.stringify({ name, description: `the ${name} test tool`, tier: 'SAFE', inputSchema: twoFields, ...fields }));
  return path;
}

beforeAll(async () => {
  service = createServer((request, response) => {
    paths.push(request.url ?? '');
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ path: request.url }));
  });
  await new Promise<void>((done) => service.listen(0, '127.0.0.1', done));
  port = (service.address() as AddressInfo).port;
  dirs = makeTempDirs();
  const printf = (args: string[]) => ({ sideEffects: ['ProcessSpawn'], source: { kind: 'subprocess', command: '/usr/bin/printf', args, output: 'text' } });
  // A program the agent's own tools could rewrite between the gate's hash check and its start.
  const workspaceProgram = join(dirs.workspace, 'helper.sh');
  writeFileSync(workspaceProgram, `#!/bin/sh\ntouch ${join(dirs.outside, 'ran')}\necho ran\n`);
  chmodSync(workspaceProgram, 0o755);
  const toolModules = [
    manifest('workspace_program', { sideEffects: ['ProcessSpawn'], source: { kind: 'subprocess', command: workspaceProgram, args: ['{{first}}', '{{second}}'], output: 'text' } }),
    // printf reads a lone `--version` as its option and prints its version instead of the format.
    manifest('joined_format', printf(['{{first}}{{second}}'])),
    manifest('suffixed_name', printf(['<%s>\\n', '{{first}}{{second}}.txt'])),
    manifest('file_by_name', {
      sideEffects: ['NetRead'],
      capabilities: ['net:read'],
      source: { kind: 'http', url: `http://127.0.0.1:${port}/v1/files/{{first}}.{{second}}`, response: 'json' },
    }),
  ];
  gate = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, poolSize: 1, approvalTimeoutMs: WAIT_MS, toolModules, grants: ['fs:read', `net:read:127.0.0.1:${port}`] });
  agent = await connectMcp(gate.mcpUrl, readToken(dirs.home));
  // Whatever asks a person here is approved: the checks under test come after.
  approveEveryPrompt(gate.backend);
});

afterAll(async () => {
  await agent?.close();
  await gate?.close();
  dirs?.remove();
  service?.close();
});

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await agent.callTool({ name, arguments: args })) as CallToolResult;
}

describe('subprocess tool arguments', () => {
  it('refuse an option made by two fields together, so the program never reads it as one', async () => {
    const plain = await call('joined_format', { first: 'he', second: 'llo' });
    expect(plain.structuredContent).toEqual({ text: 'hello' });
    const smuggled = await call('joined_format', { first: '', second: '--version' });
    expect(smuggled._meta?.['toolgate/errorCode']).toBe('EVALIDATION');
    expect(textOf(smuggled)).toContain('which the program would read as an option');
    expect(textOf(smuggled)).not.toContain('coreutils');
  });

  it('refuse a field that starts an argument with "-" even when the template adds text after it', async () => {
    const smuggled = await call('suffixed_name', { first: '--output=/tmp/x', second: '' });
    expect(smuggled._meta?.['toolgate/errorCode']).toBe('EVALIDATION');
    expect(textOf(smuggled)).toContain('"--output=/tmp/x.txt", which the program would read as an option');
  });
});

describe('subprocess tool programs', () => {
  it('refuse a program that lies in the workspace, where the agent could swap it after the hash check; it never runs', async () => {
    const refused = await call('workspace_program', { first: 'a', second: 'b' });
    expect(refused._meta?.['toolgate/errorCode']).toBe('EPERMISSION');
    expect(textOf(refused)).toContain('lies in the workspace');
    expect(existsSync(join(dirs.outside, 'ran'))).toBe(false);
  });
});

describe('HTTP tool paths', () => {
  it('refuse fields that with the template make a "." or ".." segment, before any request goes out', async () => {
    const plain = await call('file_by_name', { first: 'report', second: 'json' });
    expect(plain.structuredContent).toEqual({ path: '/v1/files/report.json' });
    const before = paths.length;
    // Two empty fields leave the template's own dot as a segment: the request would name /v1/files/ itself.
    for (const [first, second, segment] of [['', '', '.'], ['.', '', '..'], ['', '.', '..']]) {
      const climbing = await call('file_by_name', { first, second });
      expect(climbing._meta?.['toolgate/errorCode']).toBe('EVALIDATION');
      expect(textOf(climbing)).toContain(`would hold the segment "${segment}", which would climb the endpoint's path`);
    }
    expect(paths.length).toBe(before);
    // An encoded dot stays data: it goes out as %252e, which names no parent.
    expect((await call('file_by_name', { first: '%2e', second: '' })).structuredContent).toEqual({ path: '/v1/files/%252e.' });
  });
});
