import { Client, SdkError, SdkErrorCode, type McpSubscription, type Transport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { processTree } from '../hosts/processTree';
import type { Redactor } from '../secrets/redactor';

/**
 * One running instance of an upstream server, reached through the official v2 MCP client: it
 * negotiates the revision with `server/discover` (MCP 2026-07-28, stateless, over Streamable HTTP
 * or stdio) and falls back to a 2025 `initialize` session when the server gives no modern answer.
 */

/** The MCP revision the gate and a server settled on: '2026-07-28', or the 2025-era one its initialize agreed. */
export type ProtocolRevision = string;

/** The last bytes a server wrote to stderr, its secrets replaced by their placeholders. */
export class StderrTail {
  private kept = Buffer.alloc(0);

  constructor(
    private readonly maxBytes: number,
    private readonly redactor: Redactor,
  ) {}

  append(chunk: Buffer): void {
    const joined = Buffer.concat([this.kept, chunk]);
    this.kept = joined.length > this.maxBytes ? joined.subarray(joined.length - this.maxBytes) : joined;
  }

  /** ": <its last words>" for a message, or "" when it said nothing. */
  suffix(): string {
    const text = this.redactor.redactText(this.kept.toString('utf8')).trim();
    return text ? `; its stderr ends: ${text}` : '';
  }
}

/**
 * The v2 SDK's stdio transport, probed in place. Given its own base class, the client's 'auto'
 * negotiation would run `server/discover` on a second copy of the server spawned for the probe and
 * then start the real one: two starts of a program that may act on starting, a probe whose stderr
 * is lost, and a process the gate's sandbox teardown never tracked. A subclass keeps one process
 * life: the probe is the first message on the server's own pipe (a 2025 server answers it with
 * "method not found", or says nothing until the probe times out, and gets `initialize` after).
 */
export class GateStdioTransport extends StdioClientTransport {
  /**
   * Ends the server and whatever it started. The gate ends an instance's tree itself before it
   * gets here (see end() in upstreamConnection); this covers the SDK closing the transport on its
   * own, as it does when a connect fails mid-negotiation: the tree is noted while its root lives.
   */
  override async close(): Promise<void> {
    const tree = this.pid === null ? new Set<number>() : processTree(this.pid);
    await super.close();
    signalAll(tree, 'SIGKILL');
  }
}

/** Sends a signal to each process, skipping those already gone. */
export function signalAll(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // Already gone.
    }
  }
}

/** One instance: a process (stdio) or a series of requests (http), and what the gate knows of it. */
export interface Session {
  client: Client;
  transport: Transport;
  stderr?: StderrTail;
  /** Resolves when the connection has closed, for whatever reason. */
  closed: Promise<void>;
  /** The gate closed it on purpose (close(), a failed start): not a crash. */
  ending: boolean;
  /** It sent a message past maxMessageBytes and was cut off. */
  overflowed: boolean;
  /** The revision negotiated, once connected. */
  protocol?: ProtocolRevision;
  /** Its 2026-07-28 `subscriptions/listen` stream for tool-list changes, when it has one. */
  listening?: McpSubscription;
  /** A changed tool list is being fetched. */
  refreshing?: boolean;
  /** Another list_changed came while it was: fetch once more after. */
  refreshAgain?: boolean;
}

/** How long a stdio server gets to answer the `server/discover` probe before it is taken for a 2025 server that ignores it. */
const STDIO_PROBE_MS = 5000;

/** A v2 client that negotiates the revision ('auto'), or goes straight to `initialize` when the server is known to be 2025-only. */
export function upstreamClient(options: { knownLegacy: boolean; stdio: boolean; startTimeoutMs: number }): Client {
  return new Client(
    { name: 'toolgate', version: '1' },
    {
      // No capabilities: a server's sampling, elicitation and roots requests are refused, never passed to the agent or the person.
      capabilities: {},
      versionNegotiation: {
        mode: options.knownLegacy ? 'legacy' : 'auto',
        // Over http the probe shares the start's deadline (silence there is an outage, not a 2025 server).
        ...(options.stdio ? { probe: { timeoutMs: Math.min(STDIO_PROBE_MS, options.startTimeoutMs) } } : {}),
      },
    },
  );
}

/**
 * Whether a stdio connect failed because the server exited on the `server/discover` probe, as some
 * 2025 servers do on any request before `initialize`: started again without the probe, it works.
 */
export function exitedOnProbe(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.EraNegotiationFailed && /closed during the server\/discover probe/.test(error.message);
}

/**
 * Opens a 2026-07-28 server's `subscriptions/listen` stream for tool-list changes, which replaces
 * the 2025 unsolicited notification; `onEnded` hears when the server or the network ends it. A
 * server that does not say it announces changes is not asked. Undefined when there is none.
 */
export async function listenForToolChanges(session: Session, timeoutMs: number, onEnded: () => void): Promise<McpSubscription | undefined> {
  const { client } = session;
  if (client.getProtocolEra() !== 'modern' || !client.getServerCapabilities()?.tools?.listChanged) return undefined;
  const subscription = await client.listen({ toolsListChanged: true }, { timeout: timeoutMs });
  void subscription.closed.then((how) => {
    if (how !== 'local') onEnded();
  });
  return subscription;
}

/** Rejects when the signal aborts: the probe of a negotiating connect does not heed a signal of its own. */
export function untilAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    const abort = () => reject(new Error('aborted'));
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}
