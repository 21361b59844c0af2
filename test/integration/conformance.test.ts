/**
 * The official MCP conformance suite against a real gate, for each requirement set it has
 * (`--spec-version 2025-06-18` and `2025-11-25`). The suite cannot send a bearer token, so it talks
 * to a proxy that adds the agents' token and leaves every other header as the suite sent it.
 *
 * Every scenario of a set must be named below: either it applies to a gate that serves tools only
 * and every one of its checks must be SUCCESS, or it is not applicable, with the spec's reason and
 * the outcome that shows it is still not applicable (a scenario that starts to pass, or one a newer
 * suite adds, fails this test until someone decides where it belongs).
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { toolgateRoot } from '../../main/state/paths';
import { startBearerProxy, type BearerProxy } from '../fixtures/bearerProxy';
import { connectMcp, makeTempDirs, rawRequest, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

const SUITE_CLI = resolve('node_modules/@modelcontextprotocol/conformance/dist/index.js');
const REFERENCE_TOOLS = resolve('test/fixtures/referenceToolsServer.mjs');

/** One check of a scenario, as the suite writes it to checks.json. */
interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/** Scenarios whose every check must be SUCCESS. */
const APPLIES = ['server-initialize', 'ping', 'tools-list', 'logging-set-level', 'server-sse-multiple-streams', 'dns-rebinding-protection'];

/** Why a scenario does not apply, and the outcome of every one of its checks that shows it still does not. */
interface NotApplicable {
  reason: string;
  outcome: RegExp;
}

const NO_CAPABILITY = /^FAILURE: Failed: MCP error -32601: Method not found$/;
const REFERENCE_CONTENT =
  "calls a tool of the suite's reference server by its bare name; the gate serves its own tools and upstream servers' as server__tool (the same tools behind the gate are checked below)";

/**
 * What a scenario that calls a reference tool by its bare name gets: the gate's JSON-RPC error for a
 * tool it does not have (invalid params, as the spec lists unknown tools among protocol errors),
 * naming its own tools.
 */
const UNKNOWN_REFERENCE_TOOL: NotApplicable = {
  reason: REFERENCE_CONTENT,
  outcome: /^FAILURE: Failed: MCP error -32602: ENOTFOUND: no tool named "test_\w+"; the tools are: /,
};

/**
 * The scenarios a tools-only gate rightly fails. Capabilities: "Servers that support <feature> MUST
 * declare the <feature> capability" (2025-06-18 and 2025-11-25, server/resources, server/prompts,
 * server/utilities/completion); the gate declares `tools` and `logging` (its calls' log lines reach
 * the agent), and the SDK answers the rest -32601.
 */
const NOT_APPLICABLE: Record<string, NotApplicable> = {
  'completion-complete': { reason: 'no prompts or resource templates, so no completions capability', outcome: NO_CAPABILITY },
  'tools-call-with-logging': UNKNOWN_REFERENCE_TOOL,
  'prompts-list': { reason: 'no prompts capability', outcome: NO_CAPABILITY },
  'prompts-get-simple': { reason: 'no prompts capability', outcome: NO_CAPABILITY },
  'prompts-get-with-args': { reason: 'no prompts capability', outcome: NO_CAPABILITY },
  'prompts-get-embedded-resource': { reason: 'no prompts capability', outcome: NO_CAPABILITY },
  'prompts-get-with-image': { reason: 'no prompts capability', outcome: NO_CAPABILITY },
  'resources-list': { reason: 'no resources capability', outcome: NO_CAPABILITY },
  'resources-read-text': { reason: 'no resources capability', outcome: NO_CAPABILITY },
  'resources-read-binary': { reason: 'no resources capability', outcome: NO_CAPABILITY },
  'resources-templates-read': { reason: 'no resources capability', outcome: NO_CAPABILITY },
  'resources-subscribe': { reason: 'no resources capability', outcome: NO_CAPABILITY },
  'resources-unsubscribe': { reason: 'no resources capability', outcome: NO_CAPABILITY },
  'tools-call-image': UNKNOWN_REFERENCE_TOOL,
  'tools-call-audio': UNKNOWN_REFERENCE_TOOL,
  'tools-call-embedded-resource': UNKNOWN_REFERENCE_TOOL,
  'tools-call-mixed-content': UNKNOWN_REFERENCE_TOOL,
  'tools-call-with-progress': UNKNOWN_REFERENCE_TOOL,
  'tools-call-simple-text': UNKNOWN_REFERENCE_TOOL,
  'tools-call-error': UNKNOWN_REFERENCE_TOOL,
  'tools-call-sampling': { reason: `no gate tool asks the client for sampling; ${UNKNOWN_REFERENCE_TOOL.reason}`, outcome: UNKNOWN_REFERENCE_TOOL.outcome },
  'tools-call-elicitation': { reason: `no gate tool elicits: a person approves calls in the console, not through the agent; ${UNKNOWN_REFERENCE_TOOL.reason}`, outcome: UNKNOWN_REFERENCE_TOOL.outcome },
  'elicitation-sep1034-defaults': { reason: 'no gate tool elicits (as above)', outcome: UNKNOWN_REFERENCE_TOOL.outcome },
  'elicitation-sep1330-enums': { reason: 'no gate tool elicits (as above)', outcome: UNKNOWN_REFERENCE_TOOL.outcome },
};

let dirs: TempDirs;
let running: RunningGate;
let token: string;
let proxy: BearerProxy;

beforeAll(async () => {
  dirs = makeTempDirs();
  // The reference tools as an upstream server `ref`; its sandbox must read this checkout and Node.
  const readable = [toolgateRoot(), dirname(dirname(process.execPath))];
  writeFileSync(join(dirs.home, 'servers.json'), JSON.stringify({ mcpServers: { ref: { command: process.execPath, args: [REFERENCE_TOOLS], sandbox: { readable } } } }));
  running = await startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs: WAIT_MS, poolSize: 1 });
  token = readToken(dirs.home);
  proxy = await startBearerProxy(running.port, token);
  const [server] = (await running.backend.handlers.upstreamServers({})).servers;
  await running.backend.handlers.approveUpstreamLaunch({ server: server!.name, launchHash: server!.launchHash });
  for (const deadline = Date.now() + WAIT_MS; ; await new Promise((wait) => setTimeout(wait, 100))) {
    const [ref] = (await running.backend.handlers.upstreamServers({})).servers;
    if (ref!.status === 'ready' && ref!.tools.length > 0) {
      // Trusted as the person would at review, at the class each suggests: no tool is offered to agents before that.
      const tools = ref!.tools.map((tool) => ({ name: tool.name, definitionHash: tool.definitionHash, class: tool.class }));
      await running.backend.handlers.reviewUpstream({ server: ref!.name, tools });
      break;
    }
    if (Date.now() > deadline) throw new Error(`the reference tools server is not ready: ${ref!.status} ${ref!.detail ?? ''}`);
  }
  // The person approves every call their classes make ask about.
  running.backend.subscribe('approvalRequested', (request) => void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' }));
});

afterAll(async () => {
  await proxy?.close();
  await running?.close();
  dirs?.remove();
});

/** Runs the suite's active server scenarios of one requirement set; the checks of each scenario by name. */
async function runSuite(specVersion: string): Promise<Map<string, Check[]>> {
  const outputDir = join(dirs.outside, specVersion);
  const args = [SUITE_CLI, 'server', '--url', `http://127.0.0.1:${proxy.port}/mcp`, '--spec-version', specVersion, '-o', outputDir];
  // The CLI exits 1 whenever a check fails, the not-applicable ones included: its results are read from outputDir.
  await promisify(execFile)(process.execPath, args, { cwd: dirs.outside, timeout: WAIT_MS }).catch((error: { killed?: boolean }) => {
    if (error.killed) throw new Error(`the conformance suite did not finish in ${WAIT_MS / 1000} s`);
  });
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(outputDir)) {
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    results.set(scenario, JSON.parse(readFileSync(join(outputDir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

/** A check as one line, for assertions that name what went wrong. */
function outcomeOf(check: Check): string {
  return `${check.status}: ${check.errorMessage ?? ''}`;
}

describe('MCP conformance suite', () => {
  it.each([
    ['2025-06-18', ['server-initialize', 'ping', 'tools-list', 'logging-set-level']],
    ['2025-11-25', APPLIES],
  ])('requirement set %s: every applicable scenario passes and every other one is named', async (specVersion, applicable) => {
    const results = await runSuite(specVersion);
    expect([...results.keys()].filter((scenario) => !APPLIES.includes(scenario) && !(scenario in NOT_APPLICABLE))).toEqual([]);
    for (const scenario of applicable) {
      const checks = results.get(scenario);
      expect(checks, `${scenario} did not run`).toBeDefined();
      expect(checks!.map((check) => `${check.id} ${outcomeOf(check)}`)).toEqual(checks!.map((check) => `${check.id} SUCCESS: `));
    }
    for (const [scenario, checks] of results) {
      const notApplicable = NOT_APPLICABLE[scenario];
      if (!notApplicable) continue;
      for (const check of checks) expect(outcomeOf(check), `${scenario} (${notApplicable.reason})`).toMatch(notApplicable.outcome);
    }
    // DNS rebinding: the foreign Host reached the gate untouched, and its own guard refused it.
    if (specVersion === '2025-11-25') {
      const rebinding = results.get('dns-rebinding-protection')!.find((check) => check.id === 'localhost-host-rebinding-rejected')!;
      expect(rebinding.details).toMatchObject({ hostHeader: 'evil.example.com', statusCode: 403 });
    }
  });

  it('a client asking for protocol 2025-06-18 gets it, and its session lists tools under that version', async () => {
    const post = (body: unknown, headers: Record<string, string> = {}) =>
      rawRequest({
        port: running.port,
        path: '/mcp',
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
        body: JSON.stringify(body),
      });
    const dataOf = (body: string) => JSON.parse(body.split('\n').find((line) => line.startsWith('data: '))!.slice(6));
    const clientInfo = { name: 'conformance-2025-06-18', version: '0' };
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo } });
    expect(dataOf(init.body).result.protocolVersion).toBe('2025-06-18');
    const session = { 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, session)).status).toBe(202);
    const list = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, session);
    expect(dataOf(list.body).result.tools.map((tool: { name: string }) => tool.name)).toContain('echo');
  });
});

/**
 * The suite's reference tools served by an upstream server behind the gate (as `ref__<name>`), checked
 * as the suite's scenarios check them: a gate must hand on what an upstream tool sends unchanged.
 */
describe('the reference tools behind the gate', () => {
  let client: Client;

  beforeAll(async () => {
    client = await connectMcp(running.mcpUrl, token);
  });

  afterAll(async () => {
    await client?.close();
  });

  it('tools-call-image, -audio, -embedded-resource and -mixed-content: every content block comes through as the server sent it', async () => {
    const contentOf = async (name: string) => (await client.callTool({ name: `ref__${name}`, arguments: {} })).content as Array<Record<string, any>>;
    const [image] = await contentOf('test_image_content');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png', data: expect.stringMatching(/^iVBOR/) });
    expect(await contentOf('test_audio_content')).toEqual([{ type: 'audio', mimeType: 'audio/wav', data: expect.stringMatching(/^UklGR/) }]);
    const resource = { type: 'resource', resource: { uri: 'test://embedded-resource', mimeType: 'text/plain', text: 'This is an embedded resource content.' } };
    expect(await contentOf('test_embedded_resource')).toEqual([resource]);
    expect((await contentOf('test_multiple_content_types')).map((block) => block.type)).toEqual(['text', 'image', 'resource']);
  });

  it('tools-call-error: a tool that fails reaches the agent as an isError result with its message', async () => {
    const result = await client.callTool({ name: 'ref__test_error_handling', arguments: {} });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('intentionally returns an error');
  });

  it('tools-call-with-progress: the tool\'s progress reaches the agent, at least three notifications, always increasing', async () => {
    const values: number[] = [];
    await client.request(
      { method: 'tools/call', params: { name: 'ref__test_tool_with_progress', arguments: {}, _meta: { progressToken: 'progress-test-1' } } },
      CallToolResultSchema,
      { onprogress: ({ progress }) => values.push(progress) },
    );
    expect(values.length).toBeGreaterThanOrEqual(3);
    expect(values).toEqual([...values].sort((a, b) => a - b));
    expect(new Set(values).size).toBe(values.length);
  });

  it('json-schema-2020-12: the tool\'s $schema, $defs and additionalProperties reach the agent as declared', async () => {
    const { tools } = await client.listTools();
    expect(tools.find((tool) => tool.name === 'ref__json_schema_2020_12_tool')?.inputSchema).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      $defs: { address: { type: 'object' } },
      additionalProperties: false,
    });
  });
});
