import type { LoggingLevel } from '@modelcontextprotocol/sdk/types.js';

/** One log line a tool wrote while it ran for a call, at an MCP (RFC 5424) level. */
export interface ToolLogLine {
  level: LoggingLevel;
  /** Who wrote it: an upstream server's name and its own logger's; the tool's name when unsaid. */
  logger?: string;
  /** The line: text for a tool process's stderr, whatever JSON an upstream server sent. */
  data: unknown;
}

/** The level a tool process's stderr line is told at: a tool's own words, neither a warning nor debug chatter. */
export const STDERR_LEVEL: LoggingLevel = 'info';

/**
 * Where the log lines of the calls under way go, by call id: to the agent that made the call, and
 * only while the call runs. A line for a call nobody listens to (a hook's call, one already
 * answered) goes nowhere.
 */
export class CallLogs {
  private readonly listeners = new Map<string, (line: ToolLogLine) => void>();

  /** Hears the lines of one call; returns the function that stops hearing them. */
  listen(callId: string, listener: (line: ToolLogLine) => void): () => void {
    this.listeners.set(callId, listener);
    return () => {
      if (this.listeners.get(callId) === listener) this.listeners.delete(callId);
    };
  }

  /** Hands one line to whoever listens to its call. */
  deliver(callId: string | undefined, line: ToolLogLine): void {
    if (callId === undefined) return;
    const listener = this.listeners.get(callId);
    if (!listener) return;
    try {
      listener(line);
    } catch {
      // A listener that fails (its agent gone) must not break the pipe the line came from.
    }
  }
}
