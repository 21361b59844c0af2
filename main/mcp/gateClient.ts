import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ProgressTap } from '../upstream/progressTap';
import { connectionFailure, fetchWithOwnSignals } from '../upstream/requestSignals';
import { ErrorCode, LoggingMessageNotificationSchema, McpError, type LoggingLevel } from '@modelcontextprotocol/sdk/types.js';
import { GateError } from '../../shared/errors';
import { toolgateVersion } from '../state/paths';
import { GATE_NOT_RUNNING_MESSAGE } from '../state/runningGate';
import { readGateAddress, readToken } from '../state/stateFolder';
import type { LogMessageParams } from './agentLog';

export { GATE_NOT_RUNNING_MESSAGE };

/** Request options for a call that may wait on a person: the gate's progress keeps it alive. */
export const LONG_CALL = { timeout: 60_000, resetTimeoutOnProgress: true, maxTotalTimeout: 24 * 3600_000 } as const;

/** How long closing waits for the gate to confirm the session's end before closing anyway. */
const TERMINATE_TIMEOUT_MS = 2000;

/** No gate runs for this state folder, or none answers at the address it recorded. */
export class GateNotRunningError extends GateError {
  constructor() {
    super('ENOTFOUND', GATE_NOT_RUNNING_MESSAGE);
    this.name = 'GateNotRunningError';
  }
}

/** One MCP session with the running gate. */
export interface GateSession {
  readonly client: Client;
  /** Its calls' progress, taken as it arrives (see ProgressTap). */
  readonly progress: ProgressTap;
  /** Ends the session on the gate (DELETE), then closes the client. Idempotent; never throws. */
  close(): Promise<void>;
  /** Closes the client without telling the gate, for a session the gate no longer has. Idempotent. */
  abandon(): Promise<void>;
}

/** True for a request that never reached a gate: nothing listens, or the connection dropped before an answer began. */
export function isConnectionFailure(error: unknown): boolean {
  return connectionFailure(error) !== undefined;
}

/** True when the gate no longer knows the session: it restarted (404), or answers with another token (401). */
function isSessionGone(error: unknown): boolean {
  return error instanceof StreamableHTTPError && (error.code === 404 || error.code === 401);
}

/** Opens an MCP session with the gate recorded in $TOOLGATE_HOME/gate.json, with the token beside it. */
export async function openGateSession(home: string, clientName: string): Promise<GateSession> {
  const address = readGateAddress(home);
  const token = readToken(home);
  const client = new Client({ name: clientName, version: toolgateVersion() });
  const transport = new StreamableHTTPClientTransport(new URL(address.mcpUrl), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
    // The transport hands every POST the one signal it keeps for its life; a bridge forwarding
    // thousands of calls would pile a listener per call on it (see fetchWithOwnSignals).
    fetch: fetchWithOwnSignals(),
  });
  const progress = new ProgressTap(transport);
  try {
    await client.connect(transport);
  } catch (error) {
    await client.close().catch(() => {});
    if (isConnectionFailure(error)) {
      throw new GateError('ENOTFOUND', `no gate answers at ${address.mcpUrl}: start it again with \`toolgate serve --workspace DIR\``);
    }
    throw error;
  }
  let closing: Promise<void> | undefined;
  const abandon = () => {
    closing ??= client.close().catch(() => {});
    return closing;
  };
  return {
    client,
    progress,
    abandon,
    close: () => {
      if (closing) return closing;
      closing = (async () => {
        let timer: NodeJS.Timeout | undefined;
        try {
          await Promise.race([
            transport.terminateSession().catch(() => {}),
            new Promise<void>((resolve) => (timer = setTimeout(resolve, TERMINATE_TIMEOUT_MS))),
          ]);
        } finally {
          clearTimeout(timer);
          await client.close().catch(() => {});
        }
      })();
      return closing;
    },
  };
}

/**
 * A connection to the running gate that survives its restarts, for the stdio bridge: a request that
 * finds its session gone or no gate listening reconnects once (re-reading gate.json and the token)
 * and is sent again; if no gate answers then, it fails with GateNotRunningError.
 */
export class GateConnection {
  private session: GateSession | undefined;
  private connecting: Promise<GateSession> | undefined;
  private closed = false;
  /** Where the gate's log lines go, in every session. */
  private onLog: ((params: LogMessageParams) => void) | undefined;
  /** The level set last, sent again to each new session (a restarted gate does not know it). */
  private logLevel: LoggingLevel | undefined;

  private constructor(
    private readonly home: string,
    private readonly clientName: string,
  ) {}

  /** Connects to the gate running now; throws the GateError that says why there is none. */
  static async open(home: string, clientName: string): Promise<GateConnection> {
    const connection = new GateConnection(home, clientName);
    connection.session = await openGateSession(home, clientName);
    return connection;
  }

  /** Sends a request through the current session, reconnecting once if the gate restarted or went away. */
  async send<T>(request: (client: Client, session: GateSession) => Promise<T>): Promise<T> {
    const first = this.session ?? (await this.connect());
    try {
      return await request(first.client, first);
    } catch (error) {
      // A request still pending when another one found the gate gone ends with the dropped client.
      const droppedUnderIt = this.session !== first && error instanceof McpError && error.code === ErrorCode.ConnectionClosed;
      if (!isSessionGone(error) && !isConnectionFailure(error) && !droppedUnderIt) throw error;
      const second = await this.reconnect(first);
      try {
        return await request(second.client, second);
      } catch (retryError) {
        if (!isConnectionFailure(retryError)) throw retryError;
        this.drop(second);
        throw new GateNotRunningError();
      }
    }
  }

  /** Passes the gate's log lines (notifications/message) to `onLog`, in this session and every later one. */
  hearLogs(onLog: (params: LogMessageParams) => void): void {
    this.onLog = onLog;
    if (this.session) this.attachLogs(this.session.client);
  }

  /** Sets the lowest level of the log lines the gate sends, now and in every later session. */
  async setLogLevel(level: LoggingLevel): Promise<void> {
    this.logLevel = level;
    await this.send((client) => client.setLoggingLevel(level));
  }

  private attachLogs(client: Client): void {
    const onLog = this.onLog;
    if (onLog) client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => onLog(notification.params));
  }

  /** Forgets a session that failed, unless another request already replaced it. */
  private drop(stale: GateSession): void {
    if (this.session !== stale) return;
    this.session = undefined;
    void stale.abandon();
  }

  /** The session that replaces a failed one: another request's fresh one, or a new connection. */
  private async reconnect(stale: GateSession): Promise<GateSession> {
    this.drop(stale);
    return this.session ?? (await this.connect());
  }

  /** One connection attempt shared by every request that needs it. */
  private connect(): Promise<GateSession> {
    if (this.closed) return Promise.reject(new GateNotRunningError());
    this.connecting ??= openGateSession(this.home, this.clientName)
      .then(async (session) => {
        if (this.closed) {
          await session.close();
          throw new GateNotRunningError();
        }
        this.attachLogs(session.client);
        if (this.logLevel) await session.client.setLoggingLevel(this.logLevel).catch(() => {});
        this.session = session;
        return session;
      })
      .catch((error: unknown) => {
        throw error instanceof GateError || isConnectionFailure(error) ? new GateNotRunningError() : error;
      })
      .finally(() => {
        this.connecting = undefined;
      });
    return this.connecting;
  }

  /** Ends the current session on the gate and closes. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const session = this.session;
    this.session = undefined;
    await session?.close();
  }
}
