/**
 * Shared setup for the integration specs: temp state folders, a gate in this process, the
 * official MCP client, raw HTTP, the console's WebSocket bridge and the CLI as a child process.
 * Everything started here has a close/stop that the specs call in their after-hooks.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import WebSocket from 'ws';
import type { ApprovalRequest } from '../../shared/approval';
import type { AuditRecord } from '../../shared/audit';
import type { BridgeReply } from '../../shared/contract';
import type { ConsoleBackend } from '../../main/bridge/consoleBackend';
import type { GateOptions } from '../../main/gate/createGate';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { z } from 'zod';
import { defineTool } from '../../main/registry/defineTool';
import type { ToolRegistry } from '../../main/registry/registry';
import { WAIT_MS } from '../fixtures/processes';

/** A temp state folder, a temp workspace and a temp folder outside the workspace. */
export interface TempDirs {
  home: string;
  workspace: string;
  outside: string;
  remove(): void;
}

/** Creates fresh, empty temp folders for one test (or one spawned gate). */
export function makeTempDirs(): TempDirs {
  const base = mkdtempSync(join(tmpdir(), 'toolgate-it-'));
  const dirs = { home: join(base, 'home'), workspace: join(base, 'ws'), outside: join(base, 'outside') };
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  return { ...dirs, remove: () => rmSync(base, { recursive: true, force: true }) };
}

/** The agents' MCP token, as an agent's client reads it. */
export function readToken(home: string): string {
  return readFileSync(join(home, 'token'), 'utf8').trim();
}

/** The person's console token (what the console URL carries), which opens /bridge only. */
export function readConsoleToken(home: string): string {
  return readFileSync(join(home, 'console-token'), 'utf8').trim();
}

/** A gate started in this process on a free loopback port, with its temp folders. */
export interface TestGate {
  running: RunningGate;
  dirs: TempDirs;
  /** The agents' MCP token (for /mcp). */
  token: string;
  /** The person's console token (for /bridge). */
  consoleToken: string;
  close(): Promise<void>;
}

/**
 * Starts a gate over fresh temp folders, with a user policy file (written first), a mode or --grant rules, and a team when given.
 * Its prompts wait WAIT_MS unless told otherwise: a prompt a test answers must outlast a busy machine's pause before the answer.
 */
export async function startTestGate(
  options: { approvalTimeoutMs?: number; userPolicy?: unknown } & Pick<GateOptions, 'policyMode' | 'policyRules' | 'claudeCodeBashInGate' | 'team'> = {},
): Promise<TestGate> {
  const dirs = makeTempDirs();
  if (options.userPolicy) writeFileSync(join(dirs.home, 'policy.json'), JSON.stringify(options.userPolicy, null, 2));
  const running = await startGate({
    home: dirs.home,
    workspace: dirs.workspace,
    port: 0,
    approvalTimeoutMs: options.approvalTimeoutMs ?? WAIT_MS,
    poolSize: 1,
    ...(options.policyMode ? { policyMode: options.policyMode } : {}),
    ...(options.policyRules ? { policyRules: options.policyRules } : {}),
    ...(options.claudeCodeBashInGate !== undefined ? { claudeCodeBashInGate: options.claudeCodeBashInGate } : {}),
    ...(options.team ? { team: options.team } : {}),
  });
  return {
    running,
    dirs,
    token: readToken(dirs.home),
    consoleToken: readConsoleToken(dirs.home),
    close: async () => {
      await running.close();
      dirs.remove();
    },
  };
}

/** The official MCP client over Streamable HTTP with the bearer token. */
export async function connectMcp(mcpUrl: string, token: string): Promise<Client> {
  const client = new Client({ name: 'toolgate-integration-test', version: '0.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/** The text content of a tool result, joined. */
export function textOf(result: unknown): string {
  const content = (result as CallToolResult).content ?? [];
  return content.map((item) => (item.type === 'text' ? item.text : '')).join('\n');
}

/** The gate's call id in a tool result. */
export function callIdOf(result: unknown): string {
  const callId = (result as CallToolResult)._meta?.['toolgate/callId'];
  if (typeof callId !== 'string') throw new Error(`no toolgate/callId in ${JSON.stringify(result)}`);
  return callId;
}

/** The kinds of a call's audit records, oldest first. */
export function auditKinds(records: readonly AuditRecord[]): string[] {
  return records.map((record) => record.kind);
}

/** Approves every prompt the backend raises, at once (a person who approves all), keeping each in `seen` when given. */
export function approveEveryPrompt(backend: ConsoleBackend, seen?: ApprovalRequest[]): void {
  backend.subscribe('approvalRequested', (request) => {
    seen?.push(request);
    void backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'approve' });
  });
}

/** Resolves with the next approval prompt the gate raises. */
export function nextApproval(backend: ConsoleBackend): Promise<ApprovalRequest> {
  return new Promise((resolvePrompt) => {
    const unsubscribe = backend.subscribe('approvalRequested', (request) => {
      unsubscribe();
      resolvePrompt(request);
    });
  });
}

/**
 * Nobody is at the console: every prompt is recorded (by its shell command) and denied at once, so a
 * test that expects none fails on the list instead of hanging. Returns the list, filled as prompts come.
 */
export function denyPromptsUnattended(running: RunningGate): string[] {
  const prompts: string[] = [];
  running.backend.subscribe('approvalRequested', (request) => {
    prompts.push((request.arguments as { command: string }).command);
    void running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'nobody is here' });
  });
  return prompts;
}

/** A gate nobody attends (each prompt refused and recorded), with an agent calling shell_exec over MCP. */
export interface UnattendedShell {
  gate: TestGate;
  /** The command of each prompt so far, in order. */
  prompts: string[];
  /** Calls shell_exec with the command, as the agent. */
  shell(command: string): Promise<CallToolResult>;
  close(): Promise<void>;
}

/** A deny of reading and writing the workspace's private/ folder, and a private/key holding `secret` written into it. */
export const PRIVATE_DENY = [
  { rule: 'read_file(private/**)', reason: 'private stays private' },
  { rule: 'write_file(private/**)', reason: 'private stays private' },
];

/** Writes private/key holding `secret` (and a newline) into the workspace; returns the workspace. */
export function writePrivateKey(gate: TestGate, secret: string): string {
  mkdirSync(join(gate.dirs.workspace, 'private'), { recursive: true });
  writeFileSync(join(gate.dirs.workspace, 'private', 'key'), `${secret}\n`);
  return gate.dirs.workspace;
}

/** Starts a gate with this user policy and nobody at its console, and connects an agent to it; `prepare` runs before the agent connects. */
export async function startUnattendedShell(userPolicy: unknown, prepare: (gate: TestGate) => void = () => {}): Promise<UnattendedShell> {
  const gate = await startTestGate({ userPolicy });
  prepare(gate);
  const prompts = denyPromptsUnattended(gate.running);
  const agent = await connectMcp(gate.running.mcpUrl, gate.token);
  return {
    gate,
    prompts,
    shell: (command) => agent.callTool({ name: 'shell_exec', arguments: { command } }, undefined, { timeout: WAIT_MS }) as Promise<CallToolResult>,
    close: async () => {
      await agent.close();
      await gate.close();
    },
  };
}

/** A raw HTTP response. */
/** A tool of an upstream server, as the gateway registers it, whose call runs until the test finishes it. */
export interface HeldTool {
  /** Whether a call of it has started. */
  running: () => boolean;
  /** Ends the call under way, with the text "worked". */
  finish: () => void;
}

/** Registers a SAFE upstream tool that asks no one and runs until `finish` (its server able to write files, or not), reporting `progress` as it starts. */
export function registerHeldTool(registry: ToolRegistry, name: string, { changesFiles, progress }: { changesFiles: boolean; progress?: string }): HeldTool {
  let finish: (() => void) | undefined;
  const tool = defineTool({ name, version: '1.0.0', description: 'Works a while.', tier: 'SAFE', sideEffects: changesFiles ? ['FsWrite'] : [], input: z.object({}).strict(), output: z.unknown(), execute: () => undefined });
  registry.registerExternal(tool, {
    changesFiles: () => changesFiles,
    validate: () => undefined,
    preview: async () => ({ kind: 'none', reason: 'no dry run' }),
    run: (_input, context) =>
      new Promise((resolve) => {
        if (progress !== undefined) context.onProgress?.({ progress: 1, message: progress });
        finish = () => resolve({ ok: true, data: { content: [{ type: 'text', text: 'worked' }] } });
      }),
    unavailable: () => undefined,
    mustAsk: () => undefined,
    listed: () => true,
    resultFindings: () => [],
  });
  return { running: () => finish !== undefined, finish: () => finish?.() };
}

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request with full control of the headers (Host included) and the raw path. */
export function rawRequest(options: {
  port: number;
  path: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}): Promise<RawResponse> {
  return new Promise((resolveResponse, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: options.port,
        path: options.path,
        method: options.method ?? 'GET',
        agent: false,
        headers: { host: `127.0.0.1:${options.port}`, connection: 'close', ...options.headers },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolveResponse({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        response.on('error', reject);
      },
    );
    req.on('error', reject);
    req.setTimeout(WAIT_MS, () => req.destroy(new Error(`no answer to ${options.path} in ${WAIT_MS / 1000} s`)));
    req.end(options.body);
  });
}

/** A console connection over the WebSocket bridge, with request/reply and event helpers. */
export class BridgeClient {
  private nextId = 1;
  private readonly replies = new Map<number, (reply: BridgeReply<unknown>) => void>();
  private readonly events: Array<{ event: string; payload: unknown }> = [];
  private readonly waiters = new Set<() => void>();

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString()) as
        | { type: 'reply'; id: number; reply: BridgeReply<unknown> }
        | { type: 'event'; event: string; payload: unknown }
        | { type: 'events'; events: Array<{ event: string; payload: unknown }> };
      if (message.type === 'reply') this.replies.get(message.id)?.(message.reply);
      else if (message.type === 'events') this.events.push(...message.events);
      else this.events.push({ event: message.event, payload: message.payload });
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Opens the bridge with the console token and waits until it is open (rejects if the handshake is refused). */
  static async open(port: number, consoleToken: string, origin = `http://127.0.0.1:${port}`): Promise<BridgeClient> {
    const ws = openBridgeSocket(port, [`toolgate.v1`, `toolgate.token.${consoleToken}`], origin);
    await new Promise<void>((resolveOpen, reject) => {
      ws.once('open', () => resolveOpen());
      ws.once('error', reject);
    });
    return new BridgeClient(ws);
  }

  /** Sends a raw request and resolves with its reply. */
  request(method: string, params: unknown): Promise<BridgeReply<unknown>> {
    const id = this.nextId++;
    return new Promise((resolveReply) => {
      this.replies.set(id, resolveReply);
      this.ws.send(JSON.stringify({ id, method, params }));
    });
  }

  /** Resolves with the first pushed event (seen so far or later) that matches. */
  waitForEvent(event: string, matches: (payload: any) => boolean = () => true, timeoutMs = WAIT_MS): Promise<any> {
    return new Promise((resolveEvent, reject) => {
      const check = () => {
        const found = this.events.find((item) => item.event === event && matches(item.payload));
        if (!found) return false;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolveEvent(found.payload);
        return true;
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`no ${event} event in ${timeoutMs} ms`));
      }, timeoutMs);
      if (!check()) this.waiters.add(check);
    });
  }

  /** Closes the connection. */
  close(): void {
    this.ws.terminate();
  }
}

/** A bare bridge socket (for handshake checks); `origin` undefined sends no Origin header. */
export function openBridgeSocket(port: number, protocols: string[], origin: string | undefined): WebSocket {
  return new WebSocket(`ws://127.0.0.1:${port}/bridge`, protocols, origin === undefined ? {} : { origin });
}

export * from './cliProcesses';
