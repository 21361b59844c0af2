import type { ToolLogLine } from '../executor/callLogs';

/** A call under way on one upstream server, as its log lines need it. */
interface RunningCall {
  /** The agent session it came from (undefined: one of its own, shared with no other call). */
  agentSession: string | undefined;
  onLog: (line: ToolLogLine) => void;
}

/**
 * The calls under way on one upstream server, to tell whose a log line it sends is. MCP ties a
 * `notifications/message` to no request, so a line goes to the call running on the server when
 * there is one, or to the oldest of several when all came from one agent session. With calls of
 * several agents running at once it cannot be told whose the line is, and it reaches none: one
 * agent's work is never shown to another. A line sent while no call runs reaches no agent.
 */
export class RunningUpstreamCalls {
  private readonly calls = new Set<RunningCall>();

  /** Counts a call under way; returns the function that ends it. */
  add(agentSession: string | undefined, onLog: (line: ToolLogLine) => void): () => void {
    const call: RunningCall = { agentSession, onLog };
    this.calls.add(call);
    return () => this.calls.delete(call);
  }

  /** Passes one line the server sent to the call it belongs to, when that can be told. */
  deliver(line: ToolLogLine): void {
    const [oldest, ...others] = this.calls;
    if (!oldest) return;
    const oneAgent = oldest.agentSession !== undefined && others.every((call) => call.agentSession === oldest.agentSession);
    if (others.length === 0 || oneAgent) oldest.onLog(line);
  }
}

/** The logger a server's line is told under: the server's name, then its own logger's when it named one. */
export function upstreamLogger(server: string, logger: string | undefined): string {
  return logger ? `${server}/${logger}` : server;
}
