import { PreviewSchema } from '../../shared/approval';
import { ErrorCodeSchema, GateError, type ToolError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { DefinedTool } from '../registry/defineTool';
import { loadToolModule } from '../tools/loadToolModule';
import { HostRequestSchema, type HostReply, type RunRequest } from './protocol';

/**
 * Entry of a tool process: waits for `run` requests from the gate, runs the named tool's code and
 * replies with its output or its failure. One call at a time; the gate kills the process on a deadline.
 */

interface Channel {
  send(message: HostReply): void;
  onMessage(listener: (message: unknown) => void): void;
}

/** Node child_process IPC, or Electron utilityProcess's parentPort. */
function openChannel(): Channel {
  const parentPort = (process as unknown as { parentPort?: { postMessage(m: unknown): void; on(e: 'message', l: (e: { data: unknown }) => void): void } }).parentPort;
  if (parentPort) {
    return {
      send: (message) => parentPort.postMessage(message),
      onMessage: (listener) => parentPort.on('message', (event) => listener(event.data)),
    };
  }
  if (!process.send) throw new Error('the tool process must be started by the gate (no IPC channel)');
  return {
    send: (message) => process.send!(message),
    onMessage: (listener) => process.on('message', listener),
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
  const preview = PreviewSchema.safeParse(await tool.execute(request.input, { ...request.context, dryRun: true, callId: request.callId }));
  if (preview.success && hashCanonical(preview.data) === approved) return undefined;
  return {
    code: 'EDENIED',
    message: `what ${request.tool} would change is no longer what was approved (the target changed meanwhile); nothing was done, call it again to get a new prompt`,
  };
}

async function run(request: RunRequest): Promise<HostReply> {
  try {
    const tool = await findTool(request.module, request.tool);
    const stale = await changedSinceApproval(tool, request);
    if (stale) return { type: 'result', callId: request.callId, ok: false, error: stale };
    const data = await tool.execute(request.input, { ...request.context, callId: request.callId });
    return { type: 'result', callId: request.callId, ok: true, data: data === undefined ? null : data };
  } catch (error) {
    return { type: 'result', callId: request.callId, ok: false, error: toToolError(error) };
  }
}

const channel = openChannel();
channel.onMessage((message) => {
  const parsed = HostRequestSchema.safeParse(message);
  if (!parsed.success) return;
  void run(parsed.data).then((reply) => {
    try {
      channel.send(reply);
    } catch (error) {
      channel.send({ type: 'result', callId: parsed.data.callId, ok: false, error: { code: 'ERUNTIME', message: `the tool's output could not be sent: ${(error as Error).message}` } });
    }
  });
});
channel.send({ type: 'ready' });
