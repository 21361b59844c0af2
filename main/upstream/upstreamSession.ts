import { Client, SdkError, SdkErrorCode, UnsupportedProtocolVersionError, type CallToolResult, type McpSubscription, type Transport } from '@modelcontextprotocol/client';
import { isJsonObject } from '../../shared/jsonLimits';
import { DirectToolCalls, type ToolResultCheck } from './directUpstreamCall';
import type { ProgressTap } from './progressTap';
import type { Redactor } from '../secrets/redactor';

/**
 * One running instance of an upstream server, reached through the official v2 MCP client: it
 * negotiates the revision with `server/discover` (MCP 2026-07-28, stateless, over Streamable HTTP
 * or stdio) and falls back to a 2025 `initialize` session when the server gives no modern answer.
 */

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

/** One instance: a process (stdio) or a series of requests (http), and what the gate knows of it. */
export interface Session {
  client: GateClient;
  transport: Transport;
  /** Its tools/call requests, written by the gate itself: a 2025-era stdio server (see directUpstreamCall.ts). */
  direct?: DirectToolCalls;
  stderr?: StderrTail;
  /** Resolves when the connection has closed, for whatever reason. */
  closed: Promise<void>;
  /** The gate closed it on purpose (close(), a failed start): not a crash. */
  ending: boolean;
  /** It sent a message past maxMessageBytes and was cut off. */
  overflowed: boolean;
  /** Its tools/list answers' tools as sent. */
  lists: ToolListTap;
  /** Its calls' progress, as it arrives. */
  progress: ProgressTap;
  /** Its 2026-07-28 `subscriptions/listen` stream for tool-list changes, when it has one. */
  listening?: McpSubscription;
  /** A changed tool list is being fetched. */
  refreshing?: boolean;
  /** Another list_changed came while it was: fetch once more after. */
  refreshAgain?: boolean;
}

/** The `_meta` key that marks the gate's own tools/list requests, so their answers can be told apart. */
const LIST_MARKER = 'dev.toolgate/list';

/**
 * Hands the gate each tools/list answer's tools as the server sent them. On 2026-07-28 the SDK
 * checks every tool of a list against its own Tool schema and refuses the whole list for one odd
 * entry; the gate vets each tool itself and refuses the odd one alone (toolListVetting.ts). So
 * the tools are taken out of the answer before the SDK reads it, which still checks the rest of
 * the answer (its 2026-07-28 envelope: resultType, ttlMs, cacheScope; that `tools` is a list).
 * Installed on a transport before the client connects: the client keeps the handler it finds and
 * calls it first with each message, the same object it then reads itself.
 */
export class ToolListTap {
  private nextMarker = 0;
  /** The JSON-RPC id of each marked request sent, by its marker. */
  private readonly markerOfRequest = new Map<string | number, number>();
  private readonly taken = new Map<number, unknown[]>();

  constructor(transport: Transport) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if ('method' in message && message.method === 'tools/list' && 'id' in message) {
        const marker = (message.params?._meta as Record<string, unknown> | undefined)?.[LIST_MARKER];
        if (typeof marker === 'number') this.markerOfRequest.set(message.id, marker);
      }
      return send(message, options);
    };
    transport.onmessage = (message) => {
      const id = 'id' in message && !('method' in message) ? message.id : undefined;
      const marker = id === undefined ? undefined : this.markerOfRequest.get(id);
      if (id === undefined || marker === undefined) return;
      this.markerOfRequest.delete(id);
      const result = 'result' in message ? (message.result as Record<string, unknown>) : undefined;
      if (result && Array.isArray(result.tools)) {
        this.taken.set(marker, result.tools);
        result.tools = [];
      }
    };
  }

  /** The `_meta` a tools/list request carries to be tapped, and the marker to take its tools with. */
  mark(): { marker: number; meta: Record<string, unknown> } {
    const marker = ++this.nextMarker;
    return { marker, meta: { [LIST_MARKER]: marker } };
  }

  /** The tools of the answer to a marked request, as sent (once). */
  take(marker: number): unknown[] | undefined {
    const tools = this.taken.get(marker);
    this.taken.delete(marker);
    return tools;
  }
}

/** How long a stdio server gets to answer the `server/discover` probe before it is taken for a 2025 server that ignores it. */
export const STDIO_PROBE_MS = 5000;

/** The official client, with the negotiated era's check of a tools/call result to hand to a direct call. */
export class GateClient extends Client {
  /** The result as the client's request path would take it: the era's decoding (a 2026 `resultType` stripped), then its schema. */
  readonly checkToolResult: ToolResultCheck = (raw) => {
    if (isPlainTextResult(raw)) return { ok: true, result: raw };
    const codec = this._wireCodec();
    const decoded = codec.decodeResult('tools/call', raw);
    if (decoded.kind !== 'complete') return { ok: false, message: `a ${decoded.kind} result, which a plain tools/call does not take` };
    const outcome = codec.validateResult('tools/call', decoded.result);
    return outcome.ok ? { ok: true, result: outcome.value } : { ok: false, message: outcome.reason === 'invalid' ? outcome.message : 'tools/call is not in its era' };
  };
}

const PLAIN_RESULT_KEYS = new Set(['content', 'structuredContent', 'isError']);

/**
 * A result every era's codec takes as it is: only text blocks ({type, text}), a structuredContent
 * object, an isError flag and nothing else. Most tool results are this; checking them here spares
 * the zod parse, which would return an equal copy. Anything else goes to the codec.
 */
export function isPlainTextResult(raw: unknown): raw is CallToolResult {
  if (!isJsonObject(raw) || !Array.isArray(raw.content)) return false;
  for (const key of Object.keys(raw)) if (!PLAIN_RESULT_KEYS.has(key)) return false;
  if (raw.structuredContent !== undefined && !isJsonObject(raw.structuredContent)) return false;
  if (raw.isError !== undefined && typeof raw.isError !== 'boolean') return false;
  return raw.content.every((block: unknown) => isJsonObject(block) && block.type === 'text' && typeof block.text === 'string' && Object.keys(block).length === 2);
}

/** The revisions of the 2026 era the gate speaks, newest first (the 2025 ones are the SDK's SUPPORTED_PROTOCOL_VERSIONS). */
const MODERN_REVISIONS = ['2026-07-28'];

/**
 * A v2 client that negotiates the revision ('auto'), goes straight to `initialize` when the server is
 * known to be 2025-only, or, pinned, speaks the one revision a server said it speaks (its probe then
 * has the start's whole time: there is no fallback to wait for).
 */
export function upstreamClient(options: { knownLegacy: boolean; pinned?: string; stdio: boolean; startTimeoutMs: number }): GateClient {
  const probeMs = options.pinned ? options.startTimeoutMs : Math.min(STDIO_PROBE_MS, options.startTimeoutMs);
  return new GateClient(
    { name: 'toolgate', version: '1' },
    {
      // No capabilities: a server's sampling, elicitation and roots requests are refused, never passed to the agent or the person.
      capabilities: {},
      versionNegotiation: {
        mode: options.pinned ? { pin: options.pinned } : options.knownLegacy ? 'legacy' : 'auto',
        // Over http the probe shares the start's deadline (silence there is an outage, not a 2025 server).
        ...(options.stdio ? { probe: { timeoutMs: probeMs } } : {}),
      },
    },
  );
}

/**
 * The 2026 revision to pin a server to that refused the 2025 `initialize` the gate fell back to,
 * naming the revisions it speaks (-32022): a stdio server slow to start leaves the probe unanswered
 * past its time, and the spec has the client choose a revision both speak and try again.
 */
export function revisionOffered(error: unknown): string | undefined {
  if (!(error instanceof UnsupportedProtocolVersionError)) return undefined;
  return MODERN_REVISIONS.find((revision) => error.supported.includes(revision));
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
