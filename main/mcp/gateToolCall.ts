import type { AgentInfo, CallSource } from '../../shared/call';
import type { ToolResult } from '../../shared/result';
import type { ToolLogLine } from '../executor/callLogs';
import type { Executor } from '../executor/executor';
import type { ToolRegistry } from '../registry/registry';
import { toMcpTool } from '../registry/schemaFormats';
import { HELD_ARGUMENTS_META, RAW_ARGUMENTS_META } from './callToolResult';

/** What the gate tells every agent about itself, in either protocol era. */
export const GATE_INSTRUCTIONS =
  'Every call passes through Toolgate: privileged tools wait for a person to approve them in the Toolgate console, ' +
  'and a denial comes back as an error with the reason.';

const PROGRESS_INTERVAL_MS = 5000;

/** The progress message sent the moment a call starts waiting for a person (its prompt is in the console). */
export const AWAITING_APPROVAL_PROGRESS = 'waiting for a person to approve it in the Toolgate console';

/**
 * The tools an agent sees. No outputSchema: an output longer than the tool's maxOutputBytes reaches
 * the agent cut, as text, and a client that was promised structured content would refuse that
 * result. Whole object outputs still come with structuredContent.
 */
export function listedMcpTools(registry: ToolRegistry) {
  return registry.listed().map((manifest) => ({ ...toMcpTool(manifest), outputSchema: undefined }));
}

/** A tools/call's params as either SDK generation hands them over. */
export interface ToolCallParams {
  name: string;
  arguments?: unknown;
  /** The request's `_meta` (progress token, raw or held arguments). */
  meta: Record<string, unknown> | undefined;
}

/** The params of one `notifications/progress` (a type, not an interface, so either SDK takes it as notification params). */
export type ProgressParams = {
  progressToken: string | number;
  progress: number;
  total?: number;
  message?: string;
};

/** Who is calling, and how the call reaches them while it runs. */
export interface ToolCaller {
  source: CallSource;
  /** The key the executor counts this agent's prompts by (and a session grant holds for). */
  agentSession?: string;
  agent?: AgentInfo;
  /** Aborts when the agent cancels (or goes away): a waiting prompt is withdrawn, a running tool stopped. */
  signal: AbortSignal;
  /** Sends one progress notification tied to this call; a failure to send is the caller's to ignore. */
  sendProgress: (params: ProgressParams) => Promise<void>;
  /** Hears the call's log lines while it runs (secrets redacted). */
  onLog?: (line: ToolLogLine) => void;
}

/**
 * Runs one MCP tools/call through the gate's pipeline. An agent that sent a progress token is told
 * the moment the call waits for a person; while it waits (for a person or the tool) it gets a heartbeat
 * every few seconds, and an upstream tool's own progress goes on to it; all share one count, which only grows.
 */
export async function callThroughGate(executor: Executor, params: ToolCallParams, caller: ToolCaller): Promise<ToolResult> {
  const { meta } = params;
  const raw = meta?.[RAW_ARGUMENTS_META];
  const held = meta?.[HELD_ARGUMENTS_META];
  const progressToken = meta?.progressToken as string | number | undefined;
  let ticks = 0;
  const send = (progress: Omit<ProgressParams, 'progressToken'>) =>
    void caller.sendProgress({ progressToken: progressToken!, ...progress }).catch(() => {});
  const heartbeat =
    progressToken === undefined
      ? undefined
      : setInterval(() => {
          ticks++;
          send({ progress: ticks, message: 'waiting in the gate (approval or tool)' });
        }, PROGRESS_INTERVAL_MS);
  try {
    return await executor.call(
      {
        tool: params.name,
        arguments: held !== undefined ? held : typeof raw === 'string' ? raw : params.arguments,
        source: caller.source,
        ...(caller.agentSession ? { agentSession: caller.agentSession } : {}),
        ...(caller.agent ? { agent: caller.agent } : {}),
      },
      {
        signal: caller.signal,
        ...(caller.onLog ? { onLog: caller.onLog } : {}),
        ...(progressToken === undefined
          ? {}
          : {
              onAsked: () => send({ progress: ++ticks, message: AWAITING_APPROVAL_PROGRESS }),
              onProgress: (progress: { progress: number; total?: number; message?: string }) => {
                // Progress must only grow: the heartbeat's ticks and the tool's own numbers share one count.
                ticks = Math.max(ticks + 1, progress.progress);
                send({
                  progress: ticks,
                  ...(progress.total !== undefined && progress.total >= ticks ? { total: progress.total } : {}),
                  // A tool's own words never take the gate's: an agent (`toolgate call`) reads that one as a prompt waiting.
                  ...(progress.message && progress.message !== AWAITING_APPROVAL_PROGRESS ? { message: progress.message } : {}),
                });
              },
            }),
      },
    );
  } finally {
    if (heartbeat) clearInterval(heartbeat);
  }
}
