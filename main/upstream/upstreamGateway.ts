import { GateError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { SecurityTier } from '../../shared/manifest';
import {
  UPSTREAM_SEPARATOR,
  type DefinitionFinding,
  type RefusedServer,
  type ToolClass,
  type UpstreamOverview,
  type UpstreamReviewRequest,
  type UpstreamServerConfig,
  type UpstreamServerView,
  type UpstreamToolDefinition,
  type UpstreamToolView,
} from '../../shared/upstream';
import type { ExternalRunContext, ExternalRunner, ToolRegistry } from '../registry/registry';
import type { RunOutcome } from '../hosts/toolCall';
import type { PinState, ReviewStore, UpstreamConnection } from './types';
import { resultFindings } from './resultFindings';
import { shadowNeedles, type ShadowNeedle } from './textScan';
import { launchText, runOutcome, writePreview } from './upstreamCallViews';
import { definedTool, UPSTREAM_TIMEOUT_MS } from './upstreamToolDefinition';

/** Bytes of an upstream result past which it is refused (EQUOTA) instead of returned. */
export const MAX_UPSTREAM_RESULT_BYTES = 8 * 1024 * 1024;

/** The pieces the gateway is built from, injected so it can be tested with stand-ins. */
export interface GatewayParts {
  /** Makes the connection to one server (not started). */
  connect(config: UpstreamServerConfig): UpstreamConnection;
  reviews: ReviewStore;
  pinHash(definition: UpstreamToolDefinition): string;
  launchHash(config: UpstreamServerConfig): string;
  findings(server: string, definitions: UpstreamToolDefinition[], otherTools: readonly string[]): DefinitionFinding[];
  suggestedClass(definition: UpstreamToolDefinition): ToolClass;
  /** The tier an unreviewed call is judged at (never below ELEVATED). */
  unreviewedTier(suggested: ToolClass): SecurityTier;
  /** Checks arguments against a definition's JSON Schema: what is wrong, or undefined. */
  validator(definition: UpstreamToolDefinition): (args: unknown) => string | undefined;
}

/** Where the gateway's servers come from and where their tools go. */
export interface GatewayOptions {
  registry: ToolRegistry;
  /** Real path of the workspace: a write there is previewed as a diff. */
  workspace: string;
  /** The servers file, for the console. */
  file: string;
  servers: readonly UpstreamServerConfig[];
  refused: readonly RefusedServer[];
  /** Whether stdio servers run in bubblewrap on this machine. */
  sandboxed: boolean;
  /** Hears every change of the overview (the console's upstreamChanged). */
  onChange?: (overview: UpstreamOverview) => void;
}

/** One tool of a server as the gateway holds it. */
interface ToolSlot {
  definition: UpstreamToolDefinition;
  hash: string;
  pin: PinState;
  findings: DefinitionFinding[];
  registeredAs: string;
}

/** One server as the gateway holds it. */
interface ServerSlot {
  config: UpstreamServerConfig;
  launchHash: string;
  connection?: UpstreamConnection;
  /** Why its last start failed, while it has not started since. */
  startError?: string;
  tools: Map<string, ToolSlot>;
  /** Why its tools could not be brought up to date (the reviews file cannot be read), while that holds. */
  syncError?: string;
  /** Tools of its list the gate could not register (a name taken, a read-only gate), and why. */
  unregistered: Map<string, string>;
  /** The other tools agents see, as a result of this server's would name them (shadowing). */
  othersNamed: ShadowNeedle[];
  stopListening?: () => void;
}

/**
 * The person's own MCP servers behind the gate: each one started (after the person approved its
 * exact launch) and its tools registered as `server__tool`, pinned against the definitions the
 * person reviewed and checked for text aimed at the model. A tool is offered to agents only once
 * the person trusted its definition as it is: an unreviewed one, or one whose definition changed
 * since its review, waits in the Tools view with its findings, unlisted and refused.
 */
export class UpstreamGateway {
  private readonly slots = new Map<string, ServerSlot>();
  private refused: readonly RefusedServer[];
  /** Why the servers file could not be read when it last changed, while that holds. */
  private fileProblem: string | undefined;
  private closed = false;

  constructor(
    private readonly options: GatewayOptions,
    private readonly parts: GatewayParts,
  ) {
    this.refused = options.refused;
    for (const config of options.servers) this.slots.set(config.name, this.newSlot(config));
  }

  private newSlot(config: UpstreamServerConfig): ServerSlot {
    return { config, launchHash: this.parts.launchHash(config), tools: new Map(), unregistered: new Map(), othersNamed: [] };
  }

  /**
   * Takes in the servers file as it is now (it changed while the gate runs): a server no longer in
   * it is stopped and its tools removed; one whose launch changed is stopped and waits for its new
   * launch to be approved (it starts at once when that exact launch was approved before); a new one
   * waits for approval the same way. Servers whose launch is unchanged go on untouched.
   */
  reload(servers: readonly UpstreamServerConfig[], refused: readonly RefusedServer[]): void {
    if (this.closed) return;
    this.refused = refused;
    this.fileProblem = undefined;
    const wanted = new Map(servers.map((config) => [config.name, config]));
    for (const [name, slot] of this.slots) {
      const config = wanted.get(name);
      if (config && this.parts.launchHash(config) === slot.launchHash) continue;
      this.slots.delete(name);
      void this.stopServer(slot);
    }
    for (const config of servers) {
      if (this.slots.has(config.name)) continue;
      const slot = this.newSlot(config);
      this.slots.set(config.name, slot);
      if (this.parts.reviews.approvedLaunch(config.name) === slot.launchHash) this.launch(slot);
    }
    this.changed();
  }

  /** The servers file changed but cannot be read (`problem` says why): the servers go on as they were, and the console says so. */
  fileUnreadable(problem: string): void {
    this.fileProblem = problem;
    this.changed();
  }

  /** Starts every server whose launch the person approved; the others wait for it. Never throws. */
  start(): void {
    for (const slot of this.slots.values()) {
      if (this.parts.reviews.approvedLaunch(slot.config.name) === slot.launchHash) this.launch(slot);
    }
  }

  /** Servers, tools, pins and findings, as the console shows them. */
  overview(): UpstreamOverview {
    return {
      file: this.options.file,
      servers: [...this.slots.values()].map((slot) => this.serverView(slot)),
      refused: [...this.refused],
      ...(this.fileProblem ? { fileProblem: this.fileProblem } : {}),
    };
  }

  /** The servers file and every server's view; for `servers list` and tests. */
  server(name: string): UpstreamServerView | undefined {
    const slot = this.slots.get(name);
    return slot ? this.serverView(slot) : undefined;
  }

  /**
   * Looks at the saved reviews again (a `toolgate servers review` in a terminal saved some) and applies
   * them: a running server's tools as their pins now say, and a server waiting for its launch starts
   * once that exact launch was approved there.
   */
  refreshReviews(): void {
    for (const slot of this.slots.values()) {
      if (slot.connection) this.sync(slot);
      else if (this.parts.reviews.approvedLaunch(slot.config.name) === slot.launchHash) this.launch(slot);
    }
  }

  /**
   * Starts again each approved server (or `only` that one) whose start failed, or whose restarts gave
   * up: what it lacked may be there now (a secret just stored, a program installed). Called when
   * the secrets file changes, and when the person approves its launch again (Start again).
   */
  retryFailed(only?: string): void {
    for (const slot of this.slots.values()) {
      if (only !== undefined && slot.config.name !== only) continue;
      const failed = slot.startError !== undefined || slot.connection?.state().status === 'failed';
      if (!failed || this.parts.reviews.approvedLaunch(slot.config.name) !== slot.launchHash) continue;
      slot.startError = undefined;
      void this.stopServer(slot).then(() => {
        if (!this.closed && this.slots.get(slot.config.name) === slot && !slot.connection) this.launch(slot);
      });
    }
  }

  /** Trusts tools as the person saw them (the hashes must be the current definitions'), with their classes. */
  async review(request: UpstreamReviewRequest): Promise<UpstreamOverview> {
    const slot = this.slotOf(request.server);
    const reviewed = request.tools.map((entry) => {
      const tool = slot.tools.get(entry.name);
      if (!tool) throw new GateError('ENOTFOUND', `${request.server} lists no tool ${entry.name} now; look at the Tools view again`);
      if (tool.hash !== entry.definitionHash) {
        throw new GateError('EVALIDATION', `${tool.registeredAs} changed since it was shown; look at its definition again before trusting it`);
      }
      return { definition: tool.definition, class: entry.class };
    });
    this.parts.reviews.trust(request.server, reviewed);
    this.sync(slot);
    return this.overview();
  }

  /** Approves a server's exact launch (the hash must be the current one) and starts it. */
  async approveLaunch(server: string, launchHash: string): Promise<UpstreamOverview> {
    const slot = this.slotOf(server);
    if (slot.launchHash !== launchHash) {
      throw new GateError('EVALIDATION', `${server}'s entry in servers.json is not the one shown; look at its command again`);
    }
    this.parts.reviews.approveLaunch(server, launchHash);
    if (!slot.connection) this.launch(slot);
    else this.retryFailed(server);
    return this.overview();
  }

  /** Stops every server and removes their tools. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.slots.values()].map((slot) => this.stopServer(slot)));
  }

  /** Stops one server: its tools leave the registry at once, its connection is closed. */
  private async stopServer(slot: ServerSlot): Promise<void> {
    slot.stopListening?.();
    for (const tool of slot.tools.values()) this.options.registry.remove(tool.registeredAs);
    slot.tools.clear();
    const connection = slot.connection;
    slot.connection = undefined;
    await connection?.close().catch(() => {});
  }

  private slotOf(server: string): ServerSlot {
    const slot = this.slots.get(server);
    if (!slot) throw new GateError('ENOTFOUND', `no server named ${server} in servers.json`);
    return slot;
  }

  private async startServer(slot: ServerSlot): Promise<void> {
    const connection = this.parts.connect(slot.config);
    slot.connection = connection;
    slot.stopListening = connection.onToolsChanged(() => this.sync(slot));
    this.changed();
    try {
      await connection.start();
      slot.startError = undefined;
    } catch (error) {
      slot.startError = error instanceof Error ? error.message : String(error);
    }
    if (this.closed) return;
    this.sync(slot);
  }

  /** Starts a server in the background: whatever fails is in its state, never an unhandled rejection. */
  private launch(slot: ServerSlot): void {
    this.startServer(slot).catch((error: unknown) => {
      slot.startError = error instanceof Error ? error.message : String(error);
      this.changed();
    });
  }

  /**
   * Registers the server's current tools as their pins say, and removes those it no longer lists.
   * Never throws: a reviews file that cannot be read leaves the tools as they were, and says why.
   */
  private sync(slot: ServerSlot): void {
    try {
      this.resync(slot);
      slot.syncError = undefined;
    } catch (error) {
      slot.syncError = error instanceof Error ? error.message : String(error);
      this.changed();
    }
  }

  private resync(slot: ServerSlot): void {
    if (this.closed || !slot.connection) return;
    const server = slot.config.name;
    const definitions = slot.connection.tools();
    const own = new Set(definitions.map((definition) => registeredName(server, definition.name)));
    const others = this.options.registry.list().map((manifest) => manifest.name).filter((name) => !own.has(name) && !name.startsWith(`${server}${UPSTREAM_SEPARATOR}`));
    const findings = this.parts.findings(server, definitions, others);
    slot.othersNamed = shadowNeedles(others, new Set(definitions.flatMap((definition) => [definition.name.toLowerCase(), registeredName(server, definition.name).toLowerCase()])));
    for (const [name, tool] of slot.tools) {
      if (!definitions.some((definition) => definition.name === name)) {
        this.options.registry.remove(tool.registeredAs);
        slot.tools.delete(name);
      }
    }
    slot.unregistered.clear();
    for (const definition of definitions) {
      const tool: ToolSlot = {
        definition,
        hash: this.parts.pinHash(definition),
        pin: this.parts.reviews.pinState(server, definition),
        findings: findings.filter((finding) => finding.tool === definition.name),
        registeredAs: registeredName(server, definition.name),
      };
      const previous = slot.tools.get(definition.name);
      // A tool whose definition and review are as they were stays registered as it is: a call
      // waiting for its prompt meanwhile goes on.
      if (previous && previous.hash === tool.hash && samePin(previous.pin, tool.pin)) previous.findings = tool.findings;
      else this.register(slot, tool);
    }
    this.changed();
  }

  /** Registers one tool, or notes why it cannot be (it is then no tool of the gate, and the console says why). */
  private register(slot: ServerSlot, tool: ToolSlot): void {
    const { registry } = this.options;
    const name = tool.definition.name;
    const previous = slot.tools.get(name);
    if (previous) {
      registry.remove(previous.registeredAs);
      slot.tools.delete(name);
    } else if (registry.has(tool.registeredAs)) {
      slot.unregistered.set(name, `a tool named ${tool.registeredAs} is already registered; rename the server in servers.json`);
      return;
    }
    try {
      registry.registerExternal(definedTool(tool.registeredAs, tool.definition, this.classOf(tool)), this.runnerFor(slot, tool));
    } catch (error) {
      // A read-only gate refuses a writing tool; a definition the manifest cannot hold stays out too.
      slot.unregistered.set(name, error instanceof Error ? error.message : String(error));
      return;
    }
    slot.unregistered.delete(name);
    slot.tools.set(name, tool);
  }

  /** The class a tool is judged by: the person's when trusted, else its annotations' suggestion at no less than the unreviewed tier. */
  private classOf(tool: ToolSlot): ToolClass {
    if (tool.pin.state === 'trusted') return tool.pin.review.class;
    const suggested = tool.pin.state === 'unreviewed' ? tool.pin.suggested : this.parts.suggestedClass(tool.definition);
    return { ...suggested, tier: this.parts.unreviewedTier(suggested) };
  }

  private runnerFor(slot: ServerSlot, tool: ToolSlot): ExternalRunner {
    const server = slot.config.name;
    const validate = this.parts.validator(tool.definition);
    const current = () => slot.tools.get(tool.definition.name);
    return {
      staysLocal: () => {
        const { config } = slot;
        return config.transport === 'stdio' && this.options.sandboxed && !config.sandbox.network && config.sandbox.writable.length === 0;
      },
      changesFiles: () => {
        const { config } = slot;
        return config.transport === 'stdio' && (!this.options.sandboxed || config.sandbox.writable.length > 0);
      },
      validate,
      preview: async (input) => writePreview(this.options.workspace, this.classOf(tool), input),
      run: (input, context) => this.run(slot, tool, input, context),
      unavailable: () => {
        const state = slot.connection?.state();
        if (!state || state.status !== 'ready') {
          const why = state?.detail ?? slot.startError;
          return `${server} is ${state?.status ?? 'not started'}${why ? `: ${why}` : ''}`;
        }
        if (current()?.hash !== tool.hash) return `${tool.registeredAs} changed while the call waited; call it again`;
        if (tool.pin.state === 'changed') {
          return `${tool.registeredAs} changed since you reviewed it and is disabled until you look at the old and new definitions: open the Tools view, or run toolgate servers review ${server}`;
        }
        if (tool.pin.state === 'unreviewed') {
          return `${tool.registeredAs} has not been reviewed yet, so agents are not offered it: trust it in the Tools view, or run toolgate servers review ${server}`;
        }
        return undefined;
      },
      // Never reached while unavailable() refuses an unreviewed tool; kept so that no allow rule alone ever runs one.
      mustAsk: () =>
        tool.pin.state === 'unreviewed'
          ? `${tool.registeredAs} has not been reviewed, so every call asks; trust it in the Tools view or with toolgate servers review ${server}`
          : undefined,
      // Only what the person trusted as it is now: an unreviewed definition's text, findings or not, reaches no model.
      listed: () => tool.pin.state === 'trusted',
      resultFindings: (data) => resultFindings(data, slot.othersNamed),
    };
  }

  private async run(slot: ServerSlot, tool: ToolSlot, input: unknown, context: ExternalRunContext): Promise<RunOutcome> {
    const connection = slot.connection;
    // The definition the call was judged and approved by must be the one the server has now (a
    // review saved meanwhile changes how later calls are judged, not this one).
    if (!connection || slot.tools.get(tool.definition.name)?.hash !== tool.hash) {
      return { ok: false, error: { code: 'EUNAVAILABLE', message: `${tool.registeredAs} changed or went away while the call waited; it was not run` } };
    }
    // The file the person saw the diff of must be as it was then.
    if (context.approvedPreviewHash && hashCanonical(writePreview(this.options.workspace, this.classOf(tool), input)) !== context.approvedPreviewHash) {
      return { ok: false, error: { code: 'EDENIED', message: `the file ${tool.registeredAs} would write changed after the diff was approved; it was not run` } };
    }
    const outcome = await connection.call(tool.definition.name, input as Record<string, unknown>, {
      timeoutMs: Math.min(context.timeoutMs, UPSTREAM_TIMEOUT_MS),
      maxResultBytes: MAX_UPSTREAM_RESULT_BYTES,
      ...(context.signal ? { signal: context.signal } : {}),
      ...(context.onProgress ? { onProgress: context.onProgress } : {}),
      ...(context.agentSession ? { agentSession: context.agentSession } : {}),
      ...(context.onLog ? { onLog: context.onLog } : {}),
    });
    return runOutcome(slot.config.name, tool.definition.name, outcome);
  }

  private serverView(slot: ServerSlot): UpstreamServerView {
    const { config } = slot;
    const state = slot.connection?.state();
    const launchApproved = this.parts.reviews.approvedLaunch(config.name) === slot.launchHash;
    const status = state?.status ?? (launchApproved ? (slot.startError ? 'failed' : 'starting') : 'awaiting-launch');
    const detail = slot.syncError
      ? `its tools are as they were: ${slot.syncError}`
      : (state?.detail ?? slot.startError ?? (launchApproved ? undefined : 'waits for you to approve its exact launch'));
    return {
      name: config.name,
      transport: config.transport,
      launch: launchText(config),
      launchHash: slot.launchHash,
      launchApproved,
      ...(config.transport === 'stdio' ? { sandbox: config.sandbox } : {}),
      sandboxed: config.transport === 'stdio' && this.options.sandboxed,
      status,
      ...(state?.protocol ? { protocol: state.protocol } : {}),
      ...(detail ? { detail } : {}),
      restarts: state?.restarts ?? 0,
      tools: [...slot.tools.values()].map((tool) => this.toolView(tool)),
      refused: [...(state?.refused ?? []), ...[...slot.unregistered].map(([name, message]) => ({ name, message }))],
    };
  }

  private toolView(tool: ToolSlot): UpstreamToolView {
    return {
      name: tool.definition.name,
      registeredAs: tool.registeredAs,
      definition: tool.definition,
      definitionHash: tool.hash,
      pin: tool.pin.state,
      class: tool.pin.state === 'trusted' ? tool.pin.review.class : this.parts.suggestedClass(tool.definition),
      ...(tool.pin.state === 'changed' ? { previous: tool.pin.review.definition } : {}),
      findings: tool.findings,
    };
  }

  /** Tells the console; an overview that cannot be made now (the reviews file unreadable) is told later. */
  private changed(): void {
    if (this.closed || !this.options.onChange) return;
    let overview: UpstreamOverview;
    try {
      overview = this.overview();
    } catch {
      return;
    }
    this.options.onChange(overview);
  }
}

/** Whether two pin states say the same: the same state, the same definition trusted, at the same class. */
function samePin(a: PinState, b: PinState): boolean {
  if (a.state === 'unreviewed' || b.state === 'unreviewed') return a.state === b.state;
  const [x, y] = [a.review, b.review];
  return (
    a.state === b.state &&
    x.definitionHash === y.definitionHash &&
    x.class.tier === y.class.tier &&
    x.class.sideEffects.join() === y.class.sideEffects.join() &&
    (x.class.capabilities ?? []).join() === (y.class.capabilities ?? []).join()
  );
}

/** The name agents call an upstream tool by. */
export function registeredName(server: string, tool: string): string {
  return `${server}${UPSTREAM_SEPARATOR}${tool}`;
}
