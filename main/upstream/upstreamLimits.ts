import type { SandboxInfo } from '../hosts/sandbox';

/** The bounds one upstream server is held to. */
export interface UpstreamLimits {
  /** Connecting and listing its tools must finish within this. */
  startTimeoutMs: number;
  /** Re-fetching its list after notifications/tools/list_changed must finish within this. */
  listTimeoutMs: number;
  /** Tools of its list past this many are refused. */
  maxTools: number;
  /** A tool definition whose JSON is longer is refused. */
  maxDefinitionBytes: number;
  /** The end of its stderr kept for error messages. */
  maxStderrBytes: number;
  /**
   * The longest line a stdio server may send (one JSON-RPC message): past it the gate stops reading,
   * refuses the call waiting for it (EQUOTA) and restarts the server, instead of buffering on.
   */
  maxMessageBytes: number;
}

/** The limits a server gets unless its caller says otherwise. */
export const DEFAULT_UPSTREAM_LIMITS: UpstreamLimits = {
  startTimeoutMs: 30_000,
  listTimeoutMs: 10_000,
  maxTools: 512,
  maxDefinitionBytes: 65_536,
  maxStderrBytes: 8192,
  maxMessageBytes: 16 * 1024 * 1024,
};

/** How a crashed server is started again: after initialMs, doubling up to maxMs, giving up after maxRestarts failures in a row. */
export interface UpstreamBackoff {
  initialMs: number;
  maxMs: number;
  maxRestarts: number;
}

export const DEFAULT_BACKOFF: UpstreamBackoff = { initialMs: 500, maxMs: 30_000, maxRestarts: 5 };

/** What a connection needs from the gate. */
export interface UpstreamDeps {
  /** The state folder: hidden from the server. */
  home: string;
  /** A secret's value for a `$ENV.NAME` placeholder, or undefined when there is none. */
  resolveSecret(name: string): Promise<string | undefined>;
  sandbox: SandboxInfo;
  limits?: Partial<UpstreamLimits>;
  backoff?: Partial<UpstreamBackoff>;
}
