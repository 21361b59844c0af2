import { setTimeout as delay, setImmediate as nextTurn } from 'node:timers/promises';
import { ProtocolError, SdkError, SdkErrorCode, SdkHttpError, StreamableHTTPClientTransport, type Tool, type Transport } from '@modelcontextprotocol/client';
import { z } from 'zod';
import { GateError, type ToolError } from '../../shared/errors';
import type { RefusedTool, UpstreamServerConfig, UpstreamStatus, UpstreamToolDefinition } from '../../shared/upstream';
import { processTree, signalAll } from '../hosts/processTree';
import { resolvePlaceholders, type ResolvedSecret } from '../secrets/placeholders';
import { Redactor } from '../secrets/redactor';
import { DirectToolCalls } from './directUpstreamCall';
import { throttledProgress } from './progressThrottle';
import { RunningUpstreamCalls, upstreamLogger } from './upstreamLogs';
import { isMessageTooLarge } from './messageBound';
import { connectionFailure, fetchWithOwnSignals } from './requestSignals';
import { hiddenTmpHint, stdioLaunch, upstreamEnvironment } from './stdioSandbox';
import { vetToolList } from './toolListVetting';
import type { UpstreamCallOptions, UpstreamCallOutcome, UpstreamConnection, UpstreamState } from './types';
import { GateStdioTransport } from './stdioTransport';
import { DEFAULT_BACKOFF, DEFAULT_UPSTREAM_LIMITS, type UpstreamBackoff, type UpstreamDeps, type UpstreamLimits } from './upstreamLimits';
import { ProgressTap } from './progressTap';
import { exitedOnProbe, listenForToolChanges, revisionOffered, StderrTail, ToolListTap, untilAborted, upstreamClient, type Session } from './upstreamSession';

/** A tools/list page, loosely: each tool is vetted by the gate, not by the SDK's schema (one bad tool must not sink the list). */
const ToolListPageSchema = z.looseObject({ tools: z.array(z.unknown()), nextCursor: z.string().optional() });
/** Pages fetched at most, so a server handing out cursors forever cannot keep a start going. */
const MAX_LIST_PAGES = 100;

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Why a start failed, in words: an answer refused by the SDK's schema is named as the server's fault. */
function startFailureText(error: unknown): string {
  if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) return `its answer is not what MCP says it must be: ${oneLine(errorText(error))}`;
  const connection = connectionFailure(error);
  if (connection) return `its connection failed: ${oneLine(connection.why)}`;
  return errorText(error);
}

/** An SDK message (which may hold a schema's issues as indented JSON) on one line, at most 500 characters. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 500);
}

class UpstreamServerConnection implements UpstreamConnection {
  private readonly limits: UpstreamLimits;
  private readonly backoff: UpstreamBackoff;
  private status: UpstreamStatus = 'stopped';
  private detail: string | undefined = 'not started yet';
  private isolation: string | undefined;
  /** The revision its last instance negotiated. */
  private protocol: string | undefined;
  /** A stdio server found to speak only 2025 (it settled on a 2025 session, or exited on the server/discover probe): started with initialize from then on. */
  private knownLegacy = false;
  /** The revision a server that refused a 2025 initialize said it speaks: it is started pinned to it from then on. */
  private pinned: string | undefined;
  private restarts = 0;
  private failuresInARow = 0;
  private vetted: UpstreamToolDefinition[] = [];
  private refused: RefusedTool[] = [];
  private session: Session | undefined;
  /** The instance being started, which close() ends too. */
  private starting: Session | undefined;
  private restartTimer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Set<(tools: UpstreamToolDefinition[]) => void>();
  /** The calls under way, for the log lines the server sends. */
  private readonly running = new RunningUpstreamCalls();

  constructor(
    readonly config: UpstreamServerConfig,
    private readonly deps: UpstreamDeps,
  ) {
    this.limits = { ...DEFAULT_UPSTREAM_LIMITS, ...deps.limits };
    this.backoff = { ...DEFAULT_BACKOFF, ...deps.backoff };
  }

  state(): UpstreamState {
    const detail = [this.detail, this.isolation].filter(Boolean).join('; ') || undefined;
    return {
      name: this.config.name,
      transport: this.config.transport,
      status: this.status,
      ...(this.protocol ? { protocol: this.protocol } : {}),
      ...(detail ? { detail } : {}),
      restarts: this.restarts,
      tools: this.vetted.length,
      refused: this.refused,
    };
  }

  tools(): UpstreamToolDefinition[] {
    return this.vetted;
  }

  onToolsChanged(listener: (tools: UpstreamToolDefinition[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async start(): Promise<void> {
    if (this.closed) throw new GateError('EUNAVAILABLE', `server ${this.config.name} was stopped; create a new connection to start it again`);
    this.setStatus('starting', undefined);
    try {
      await this.launch();
    } catch (error) {
      if (!this.closed) this.setStatus('failed', errorText(error));
      throw error;
    }
  }

  async call(tool: string, args: Record<string, unknown>, options: UpstreamCallOptions): Promise<UpstreamCallOutcome> {
    const name = this.config.name;
    const session = this.session;
    if (!session || this.status !== 'ready') {
      return failure('EUNAVAILABLE', `server ${name} is ${this.status}${this.detail ? ` (${this.detail})` : ''}; try again once it is ready`);
    }
    const definition = this.vetted.find((entry) => entry.name === tool);
    if (!definition) {
      return failure('ENOTFOUND', `server ${name} has no registered tool "${tool}" (refused tools cannot be called); its tools: ${this.vetted.map((t) => t.name).join(', ') || 'none'}`);
    }
    const progress = options.onProgress ? throttledProgress(options.onProgress) : undefined;
    const stopHearing = options.onLog ? this.running.add(options.agentSession, options.onLog) : undefined;
    // Through the client, the call's progress is taken off the wire by the session's ProgressTap; the
    // client is given a handler only so that it asks the server for progress.
    const tapped = progress && !session.direct ? session.progress.watch(progress.report) : undefined;
    try {
      const params = { name: tool, arguments: args };
      const result = session.direct
        ? await session.direct.call(params, { signal: options.signal, timeoutMs: options.timeoutMs, onProgress: progress?.report })
        : await session.client.callTool(tapped ? { ...params, _meta: tapped.meta } : params, {
            signal: options.signal,
            timeout: options.timeoutMs,
            resetTimeoutOnProgress: false,
            onprogress: tapped ? () => {} : undefined,
            // The gate lists tools itself (vetted, not through the SDK's cache), so it hands the SDK the
            // definition: over 2026-07-28 http the SDK mirrors its x-mcp-header arguments into Mcp-Param-*
            // headers from it. Its input schema only: results are not checked against an outputSchema here.
            toolDefinition: { name: tool, inputSchema: definition.inputSchema as Tool['inputSchema'] },
          });
      // The last progress held back by the throttle reaches the agent before the result does.
      progress?.flush();
      const bytes = Buffer.byteLength(JSON.stringify(result));
      if (bytes > options.maxResultBytes) {
        return failure('EQUOTA', `${name}__${tool} returned ${bytes} bytes, over the ${options.maxResultBytes} bytes a result may have; ask for less (a narrower query, a page)`);
      }
      return {
        ok: true,
        content: result.content as unknown[],
        ...(result.structuredContent ? { structuredContent: result.structuredContent as Record<string, unknown> } : {}),
        isError: result.isError === true,
      };
    } catch (error) {
      return { ok: false, error: await this.callFailure(session, `${name}__${tool}`, error, options) };
    } finally {
      tapped?.end();
      stopHearing?.();
      progress?.stop();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.restartTimer);
    const sessions = [this.session, this.starting].filter((session) => session !== undefined);
    this.session = undefined;
    this.setStatus('stopped', 'closed by the gate');
    await Promise.all(sessions.map((session) => this.end(session)));
  }

  private setStatus(status: UpstreamStatus, detail: string | undefined): void {
    this.status = status;
    this.detail = detail;
  }

  /** Why a call failed, as the agent and the person read it. */
  private async callFailure(session: Session, label: string, error: unknown, options: UpstreamCallOptions): Promise<ToolError> {
    // types.ts names ECANCELLED, which shared/errors.ts does not have: a withdrawn call is EDENIED
    // there (the scheduler's word for it too), marked as cancelled in its details.
    if (options.signal?.aborted) {
      return { code: 'EDENIED', message: `${label} was cancelled by its caller; the server was told to stop (notifications/cancelled)`, details: { cancelled: true } };
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) {
      return { code: 'ETIMEOUT', message: `${label} did not answer within ${options.timeoutMs} ms; the server was told to stop (notifications/cancelled)` };
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.ConnectionClosed) {
      // Its last words reach the stderr pipe in the same turn as the exit; let them be read.
      await nextTurn();
      if (session.overflowed) {
        return {
          code: 'EQUOTA',
          message: `${label}: the server sent a message over ${this.limits.maxMessageBytes} bytes (this call allows ${options.maxResultBytes}); the gate stopped reading and restarts the server`,
        };
      }
      return { code: 'ECRASH', message: `${label}: server ${this.config.name} exited or dropped the connection mid-call${session.stderr?.suffix() ?? ''}` };
    }
    // An http server's answer past the bound: its request was aborted, the server goes on serving.
    if (isMessageTooLarge(error)) {
      return {
        code: 'EQUOTA',
        message: `${label}: the server sent a message over ${this.limits.maxMessageBytes} bytes (this call allows ${options.maxResultBytes}); the gate stopped reading it`,
      };
    }
    if (error instanceof SdkHttpError && error.status === 404) {
      void this.transportDropped(session);
      return { code: 'ECRASH', message: `${label}: server ${this.config.name} forgot the session (HTTP 404); the gate reconnects` };
    }
    if (error instanceof ProtocolError) {
      return { code: 'ERUNTIME', message: `${label}: the server answered with an error: ${error.message.slice(0, 500)}` };
    }
    const connection = connectionFailure(error);
    if (connection?.refused) {
      return { code: 'EUNAVAILABLE', message: `${label}: server ${this.config.name} could not be reached (${oneLine(connection.why)}); the call did not reach it` };
    }
    if (connection) {
      return { code: 'ECRASH', message: `${label}: the connection to server ${this.config.name} failed before it answered (${oneLine(connection.why)}); the call may or may not have run there` };
    }
    const why = error instanceof z.ZodError ? z.prettifyError(error) : errorText(error);
    return { code: 'ERUNTIME', message: `${label}: the server's reply is not a valid tools/call result: ${oneLine(why)}` };
  }

  /** Starts one instance within startTimeoutMs and takes its list; throws a GateError saying why not. */
  private async launch(): Promise<void> {
    const name = this.config.name;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.limits.startTimeoutMs);
    try {
      let failure = await this.tryLaunch(deadline.signal);
      if (failure && exitedOnProbe(failure.error) && !this.closed && !deadline.signal.aborted) {
        // A 2025 server that exits on any request before initialize: from now on it gets initialize first.
        this.knownLegacy = true;
        failure = await this.tryLaunch(deadline.signal);
      }
      const offered = failure && !this.pinned ? revisionOffered(failure.error) : undefined;
      if (offered && !this.closed && !deadline.signal.aborted) {
        // Its probe went unanswered in time (a server slow to start) and it refused the 2025 initialize
        // that followed, naming what it speaks: started again, pinned to that, it gets the time it needs.
        this.pinned = offered;
        this.knownLegacy = false;
        failure = await this.tryLaunch(deadline.signal);
      }
      if (!failure) return;
      if (this.closed) throw new GateError('EUNAVAILABLE', `server ${name} was stopped while it started`);
      if (deadline.signal.aborted) {
        throw new GateError('ETIMEOUT', `server ${name} did not finish starting (connect and list its tools) within ${this.limits.startTimeoutMs} ms${failure.why}`);
      }
      throw new GateError('EUNAVAILABLE', `server ${name} could not start: ${startFailureText(failure.error)}${failure.why}${hiddenTmpHint(this.config, this.deps.sandbox)}`);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One start: connect (negotiating the revision), fetch its list, and on 2026-07-28 open its
   * tool-list stream. Undefined once it is ready; else what went wrong, its instance ended.
   */
  private async tryLaunch(deadline: AbortSignal): Promise<{ error: unknown; why: string } | undefined> {
    const { transport, stderr } = await this.makeTransport();
    if (this.closed) throw new GateError('EUNAVAILABLE', `server ${this.config.name} was stopped while it started`);
    const timeout = this.limits.startTimeoutMs;
    const client = upstreamClient({ knownLegacy: this.knownLegacy, pinned: this.pinned, stdio: transport instanceof GateStdioTransport, startTimeoutMs: timeout });
    const lists = new ToolListTap(transport);
    // After the list tap: each keeps the handler it found and calls it first.
    const session: Session = { client, transport, stderr, lists, progress: new ProgressTap(transport), closed: Promise.resolve(), ending: false, overflowed: false };
    session.closed = new Promise((resolve) => {
      client.onclose = () => {
        resolve();
        void this.transportDropped(session);
      };
    });
    client.onerror = (error) => {
      if (isMessageTooLarge(error)) session.overflowed = true;
    };
    // A 2025 server sends it unasked; a 2026-07-28 one on the subscriptions/listen stream opened below.
    client.setNotificationHandler('notifications/tools/list_changed', () => this.refreshTools(session));
    // A 2025 server's log lines go to the call they belong to (2026-07-28 dropped logging).
    client.setNotificationHandler('notifications/message', ({ params }) =>
      this.running.deliver({ level: params.level, logger: upstreamLogger(this.config.name, params.logger), data: params.data }),
    );
    this.starting = session;
    try {
      const connecting = client.connect(transport, { signal: deadline, timeout });
      connecting.catch(() => {});
      await Promise.race([connecting, untilAborted(deadline)]);
      const listed = await this.fetchTools(session, deadline, timeout);
      // A server that says it announces changes but then refuses the stream still serves its tools: it starts, and the person is told.
      let unheard: string | undefined;
      session.listening = await listenForToolChanges(session, timeout, () => void this.transportDropped(session, 'its subscriptions/listen stream (how it announces tool-list changes) ended')).catch((error: unknown) => {
        unheard = `changes to its tool list go unheard: it refused subscriptions/listen (${oneLine(errorText(error))}); restart the gate to take a new list`;
        return undefined;
      });
      if (this.closed) throw new Error('stopped');
      this.session = session;
      this.protocol = client.getNegotiatedProtocolVersion();
      // A stdio server that settled on 2025 is the same approved program at its next start: it skips the
      // probe (and its wait). Its tool calls are written on its pipe by the gate (directUpstreamCall.ts).
      if (transport instanceof GateStdioTransport && client.getProtocolEra() === 'legacy') {
        this.knownLegacy = true;
        session.direct = new DirectToolCalls(transport, client.checkToolResult);
      }
      this.takeList(session, listed);
      this.failuresInARow = 0;
      this.setStatus('ready', unheard);
      return undefined;
    } catch (error) {
      session.ending = true;
      await nextTurn();
      const why = session.overflowed ? `; it sent a message over ${this.limits.maxMessageBytes} bytes, so the gate stopped reading it` : (stderr?.suffix() ?? '');
      await this.end(session);
      return { error, why };
    } finally {
      this.starting = undefined;
    }
  }

  /** The transport for one instance, secrets resolved; a stdio server's process is spawned by connect(). */
  private async makeTransport(): Promise<{ transport: Transport; stderr?: StderrTail }> {
    const config = this.config;
    if (config.transport === 'http') {
      const { values } = await this.resolveSecrets(config.headers, 'headers');
      const url = URL.canParse(config.url) ? new URL(config.url) : undefined;
      if (url?.protocol !== 'http:' && url?.protocol !== 'https:') {
        throw new GateError('EVALIDATION', `server ${config.name}: its url ${JSON.stringify(config.url)} is not an http(s) URL; write it whole (https://host/mcp)`);
      }
      const fetch = fetchWithOwnSignals(globalThis.fetch, { maxMessageBytes: this.limits.maxMessageBytes });
      return { transport: new StreamableHTTPClientTransport(url, { requestInit: { headers: values }, fetch }) };
    }
    const { values, secrets } = await this.resolveSecrets(config.env, 'env');
    const launch = stdioLaunch(config, upstreamEnvironment(config.name, config.sandbox, values), this.deps.home, this.deps.sandbox);
    this.isolation = launch.isolation;
    const stderr = new StderrTail(this.limits.maxStderrBytes, new Redactor(secrets));
    const transport = new GateStdioTransport({ command: launch.command, args: launch.args, env: launch.env, cwd: config.cwd, maxBufferSize: this.limits.maxMessageBytes });
    transport.stderr.on('data', (chunk: Buffer) => stderr.append(chunk));
    return { transport, stderr };
  }

  private async resolveSecrets(values: Record<string, string>, field: string): Promise<{ values: Record<string, string>; secrets: ResolvedSecret[] }> {
    try {
      const resolved = await resolvePlaceholders(values, { get: (name) => this.deps.resolveSecret(name), known: () => [], label: "the gate's secrets" });
      return { values: resolved.input as Record<string, string>, secrets: resolved.secrets };
    } catch (error) {
      throw new GateError('EVALIDATION', `server ${this.config.name}: its ${field} cannot be filled in: ${errorText(error)}`);
    }
  }

  /** Every page of its tools/list (up to the first past maxTools), within `timeoutMs` in all. */
  private async fetchTools(session: Session, signal: AbortSignal, timeoutMs: number): Promise<unknown[]> {
    const tools: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page++) {
      const { marker, meta } = session.lists.mark();
      const params = { ...(cursor ? { cursor } : {}), _meta: meta };
      const result = await session.client.request({ method: 'tools/list', params }, ToolListPageSchema, { signal, timeout: timeoutMs });
      tools.push(...(session.lists.take(marker) ?? result.tools));
      // Past maxTools the rest is refused unread: a server paging on could otherwise fill the gate's memory.
      if (!result.nextCursor || result.nextCursor === cursor || tools.length > this.limits.maxTools) break;
      cursor = result.nextCursor;
    }
    return tools;
  }

  /** Vets a list from one instance and makes it current. */
  private takeList(session: Session, listed: unknown[]): void {
    const headerParams = session.client.getProtocolEra() === 'modern' && session.transport instanceof StreamableHTTPClientTransport;
    const { tools, refused } = vetToolList(listed, { ...this.limits, headerParams });
    this.vetted = tools;
    this.refused = refused;
  }

  /**
   * notifications/tools/list_changed: fetch, vet, tell the listeners. One fetch at a time per
   * instance, and at most one more after it however many notifications came meanwhile: a flood
   * costs two lists, and an older list never lands after a newer one.
   */
  private refreshTools(session: Session): void {
    if (session.refreshing) {
      session.refreshAgain = true;
      return;
    }
    session.refreshing = true;
    void this.fetchChangedList(session).finally(() => {
      session.refreshing = false;
      if (!session.refreshAgain) return;
      session.refreshAgain = false;
      this.refreshTools(session);
    });
  }

  private async fetchChangedList(session: Session): Promise<void> {
    const timeout = AbortSignal.timeout(this.limits.listTimeoutMs);
    let listed: unknown[];
    try {
      listed = await this.fetchTools(session, timeout, this.limits.listTimeoutMs);
    } catch (error) {
      if (session === this.session) this.detail = `its changed tool list could not be fetched: ${errorText(error)}`;
      return;
    }
    if (session !== this.session) return;
    this.takeList(session, listed);
    this.notifyListeners();
  }

  private notifyListeners(): void {
    for (const listener of this.listeners) {
      try {
        listener(this.vetted);
      } catch {
        // One listener's failure must not keep the others from hearing of the change.
      }
    }
  }

  /** The instance ended without the gate asking (`reason` says how, when it is not the connection closing): restart it after a backoff. */
  private async transportDropped(session: Session, reason?: string): Promise<void> {
    if (session.ending || this.closed || session !== this.session) return;
    this.session = undefined;
    session.ending = true;
    await nextTurn();
    const why = session.overflowed
      ? `it sent a message over ${this.limits.maxMessageBytes} bytes`
      : (reason ?? `it exited or dropped the connection${session.stderr?.suffix() ?? ''}`);
    await this.end(session);
    this.scheduleRestart(why);
  }

  private scheduleRestart(why: string): void {
    if (this.closed) return;
    if (this.failuresInARow >= this.backoff.maxRestarts) {
      this.setStatus('failed', `gave up after ${this.failuresInARow} failed restarts in a row: ${why}`);
      return;
    }
    const waitMs = Math.min(this.backoff.initialMs * 2 ** this.failuresInARow, this.backoff.maxMs);
    this.setStatus('restarting', `${why}; starting again in ${waitMs} ms`);
    this.restartTimer = setTimeout(() => void this.restart(), waitMs);
  }

  private async restart(): Promise<void> {
    if (this.closed) return;
    this.restarts++;
    const before = JSON.stringify(this.vetted);
    try {
      await this.launch();
    } catch (error) {
      if (this.closed) return;
      this.failuresInARow++;
      this.scheduleRestart(errorText(error));
      return;
    }
    if (JSON.stringify(this.vetted) !== before) this.notifyListeners();
  }

  /**
   * Ends one instance for good: an http session, or a stdio server's whole process tree (bubblewrap
   * and all inside it, or a bare server and whatever it started), asked to stop, then killed.
   */
  private async end(session: Session): Promise<void> {
    session.ending = true;
    const pid = session.transport instanceof GateStdioTransport ? session.transport.pid : null;
    if (pid !== null) {
      const tree = processTree(pid);
      signalAll(tree, 'SIGTERM');
      await Promise.race([session.closed, delay(STOP_GRACE_MS, undefined, { ref: false })]);
      signalAll(new Set([...tree, ...processTree(pid)]), 'SIGKILL');
    }
    try {
      await session.client.close();
    } catch {
      // Closing what is already closed.
    }
  }
}

/** How long a server has to exit on SIGTERM before its processes are killed. */
const STOP_GRACE_MS = 1000;

function failure(code: ToolError['code'], message: string): UpstreamCallOutcome {
  return { ok: false, error: { code, message } };
}

/** The connection to one upstream server: stdio (sandboxed when the machine allows) or Streamable HTTP. */
export function createUpstreamConnection(config: UpstreamServerConfig, deps: UpstreamDeps): UpstreamConnection {
  return new UpstreamServerConnection(config, deps);
}
