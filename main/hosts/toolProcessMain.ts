import { PreviewSchema } from '../../shared/approval';
import { ErrorCodeSchema, GateError, type ToolError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { DefinedTool } from '../registry/defineTool';
import { Socket } from 'node:net';
import { loadToolModule } from '../tools/loadToolModule';
import { runsOnlyGateCode } from '../tools/builtinTools';
import { createFrameReader, createFrameWriter } from './frames';
import { usePtyHere } from './ptyHere';
import { clearPrivateScratch } from './privateScratch';
import { HostRequestSchema, MAX_OUTPUT_CHUNK_CHARS, stderrEndMarker, type HealthRequest, type HostReply, type RunRequest } from './protocol';

/**
 * Entry of a tool process: waits for `run` requests from the gate, runs the named tool's code and
 * replies with its output or its failure. One call at a time, but for calls of the gate's own code
 * that change nothing, which the gate may send several of at once (each reply names its call); the
 * gate kills the process on a deadline.
 */

interface Channel {
  send(message: HostReply): void;
  onMessage(listener: (message: unknown) => void): void;
}

/** The largest request the gate sends (a call's validated input). */
const MAX_REQUEST_BYTES = 64 * 1024 * 1024;

/** Framed messages on fd 3 (Node child process, bubblewrap), or Electron utilityProcess's parentPort. */
function openChannel(): Channel {
  const parentPort = (process as unknown as { parentPort?: { postMessage(m: unknown): void; on(e: 'message', l: (e: { data: unknown }) => void): void } }).parentPort;
  if (parentPort) {
    return {
      send: (message) => parentPort.postMessage(message),
      onMessage: (listener) => parentPort.on('message', (event) => listener(event.data)),
    };
  }
  let socket: Socket;
  try {
    socket = new Socket({ fd: 3, readable: true, writable: true });
  } catch {
    throw new Error('the tool process must be started by the gate (no channel on fd 3)');
  }
  // The gate going away ends the channel: nothing is left to serve.
  socket.on('end', () => process.exit(0));
  socket.on('error', () => process.exit(0));
  return {
    send: createFrameWriter((frame, sent) => socket.write(frame, sent)),
    onMessage: (listener) =>
      socket.on('data', createFrameReader(MAX_REQUEST_BYTES, { onMessage: listener, onViolation: () => process.exit(70) })),
  };
}

const modules = new Map<string, Promise<readonly DefinedTool[]>>();

async function findTool(module: string, name: string): Promise<DefinedTool> {
  let loading = modules.get(module);
  if (!loading) {
    loading = loadToolModule(module);
    modules.set(module, loading);
  }
  const tool = (await loading).find((candidate) => candidate.manifest.name === name);
  if (!tool) throw new GateError('ENOTFOUND', `module ${module} has no tool named ${name}`);
  return tool;
}

function toToolError(error: unknown): ToolError {
  if (error instanceof GateError) return error.toToolError();
  const message = error instanceof Error ? error.message : String(error);
  // A GateError from another copy of the SDK (a tool module's own) keeps its code.
  const code = ErrorCodeSchema.safeParse((error as { code?: unknown } | null)?.code);
  return { code: code.success ? code.data : 'ERUNTIME', message };
}

/** Takes the preview again and compares it with the one the person approved; undefined when they match. */
async function changedSinceApproval(tool: DefinedTool, request: RunRequest): Promise<ToolError | undefined> {
  const approved = request.context.approvedPreviewHash;
  if (approved === undefined || request.context.dryRun) return undefined;
  const shown = request.previewInput === undefined ? request.input : request.previewInput;
  const preview = PreviewSchema.safeParse(await tool.execute(shown, { ...request.context, dryRun: true, callId: request.callId }));
  if (preview.success && hashCanonical(preview.data) === approved) return undefined;
  return {
    code: 'EDENIED',
    message: `what ${request.tool} would change is no longer what was approved (the target changed meanwhile); nothing was done, call it again to get a new prompt`,
  };
}

const initialized = new Map<DefinedTool, Promise<void>>();

/** Runs a tool's initialize() once in this process, before its first call or health check. */
function initializeOnce(tool: DefinedTool, workspace: string): Promise<void> {
  let done = initialized.get(tool);
  if (!done) {
    done = (async () => {
      try {
        await tool.initialize?.({ workspace });
      } catch (error) {
        throw new GateError('ERUNTIME', `${tool.manifest.name} could not initialize: ${(error as Error).message}`);
      }
    })();
    initialized.set(tool, done);
  }
  return done;
}

/**
 * Whether this process has run code other than the gate's own (runsOnlyGateCode): a call of any tool
 * but a built-in that neither writes files nor starts processes, or a health check. Until it has,
 * nothing could have left anything in /tmp or /dev/shm; once it has, that code may still act during
 * any later call (a timer, a patched global), so /tmp and /dev/shm are emptied after every call.
 * This process judges that itself: the gate's word decides only whether it waits for the end marker.
 */
let ranOtherCode = false;

async function checkHealth(request: HealthRequest): Promise<HostReply> {
  ranOtherCode = true;
  try {
    const tool = await findTool(request.module, request.tool);
    await initializeOnce(tool, request.workspace);
    const status = tool.healthCheck ? await tool.healthCheck() : { healthy: true };
    const healthy = status?.healthy === true;
    const message = typeof status?.message === 'string' ? status.message : undefined;
    return { type: 'health', callId: request.callId, healthy, ...(message ? { message } : {}) };
  } catch (error) {
    return { type: 'health', callId: request.callId, healthy: false, message: toToolError(error).message };
  }
}

async function run(request: RunRequest): Promise<HostReply> {
  // Loading a module runs its code, even when the tool asked for is not in it.
  if (request.module !== 'builtin') ranOtherCode = true;
  try {
    const tool = await findTool(request.module, request.tool);
    if (!runsOnlyGateCode(request.module, tool.manifest)) ranOtherCode = true;
    await initializeOnce(tool, request.context.workspace);
    const stale = await changedSinceApproval(tool, request);
    if (stale) return { type: 'result', callId: request.callId, ok: false, error: stale };
    const stream = outputStream(request.callId);
    try {
      const data = await tool.execute(request.input, { ...request.context, callId: request.callId, emit: stream.emit });
      return { type: 'result', callId: request.callId, ok: true, data: data === undefined ? null : data };
    } finally {
      // What was streamed reaches the gate before the result does.
      stream.flush();
    }
  } catch (error) {
    return { type: 'result', callId: request.callId, ok: false, error: toToolError(error) };
  }
}

/** Output streamed for one call in all; past it the Live view is told the rest is left out (the result still has it). */
const MAX_STREAMED_CHARS = 8 * 1024 * 1024;

/** A call's context.emit: coalesces pieces of output into few messages (every 30 ms, or when large). */
function outputStream(callId: string): { emit: (chunk: string) => void; flush: () => void } {
  let pending = '';
  let sent = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const flush = (): void => {
    if (timer) clearTimeout(timer);
    timer = undefined;
    for (let at = 0; at < pending.length; at += MAX_OUTPUT_CHUNK_CHARS) {
      channel.send({ type: 'output', callId, chunk: pending.slice(at, at + MAX_OUTPUT_CHUNK_CHARS) });
    }
    pending = '';
  };
  const emit = (chunk: string): void => {
    if (typeof chunk !== 'string' || chunk.length === 0 || sent > MAX_STREAMED_CHARS) return;
    sent += chunk.length;
    pending += sent > MAX_STREAMED_CHARS ? '\r\n[toolgate: the rest of the output is not streamed]\r\n' : chunk;
    if (pending.length >= MAX_OUTPUT_CHUNK_CHARS) flush();
    else timer ??= setTimeout(flush, 30);
  };
  return { emit, flush };
}

// Only the gate may start Electron as Node; the tools and what they spawn must not inherit it.
delete process.env.ELECTRON_RUN_AS_NODE;
process.title = 'toolgate-tool';
// Tools run here, so shells may have a pseudo-terminal; the gate process never loads node-pty.
usePtyHere();
// Taken before any tool code runs: a tool that replaces process.stderr.write cannot hold back the end marker.
const writeStderr = process.stderr.write.bind(process.stderr);
const channel = openChannel();
channel.onMessage((message) => {
  const parsed = HostRequestSchema.safeParse(message);
  if (!parsed.success) return;
  const handled = parsed.data.type === 'health' ? checkHealth(parsed.data) : run(parsed.data);
  void handled.then((reply) => {
    // After all the call wrote to stderr, before its answer (see stderrEndMarker); writes to one stream
    // keep their order. The gate waits for it after every call but one it said started nothing.
    try {
      if (parsed.data.type === 'health' || parsed.data.startsNothing !== true) writeStderr(`${stderrEndMarker(parsed.data.callId)}\n`);
    } catch {
      // A closed stderr: the gate sends the answer on after a short wait.
    }
    try {
      channel.send(reply);
    } catch (error) {
      channel.send({ type: 'result', callId: parsed.data.callId, ok: false, error: { code: 'ERUNTIME', message: `the tool's output could not be sent: ${(error as Error).message}` } });
    } finally {
      // Before the next request is read: the next call starts with an empty /tmp.
      if (ranOtherCode) clearPrivateScratch();
    }
  });
});
channel.send({ type: 'ready' });
