import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ConsoleBridge } from '../../shared/contract';
import type { SecurityTier, SideEffect } from '../../shared/manifest';
import { CapabilitySchema, SideEffectSchema } from '../../shared/manifest';
import type { ToolClass, UpstreamOverview, UpstreamReviewRequest, UpstreamSandbox, UpstreamServerView, UpstreamToolView } from '../../shared/upstream';
import { describe } from './consoleSync';
import { countOf } from '../../shared/plural';

/** What the Tools view's "MCP servers" section shows, and what the person has chosen but not sent. */
export interface UpstreamReviewState {
  /** The overview the gate last sent (a load, an event, or the answer to a review); undefined until one came. */
  readonly overview: UpstreamOverview | undefined;
  /** Why the overview could not be loaded. */
  readonly loadProblem: string | undefined;
  /** The classes the person chose, by toolKey; a tool absent here shows its own class (the server's hint). */
  readonly classes: Readonly<Record<string, ToolClass>>;
  /** The capabilities the person typed for a tool (by toolKey), as typed; read when it is trusted. */
  readonly capabilityText: Readonly<Record<string, string>>;
  /** The definitions (by findingsKey) the person chose to trust despite their findings. */
  readonly confirmed: Readonly<Record<string, true>>;
  /** Sandboxes the person is changing but has not saved, by server. */
  readonly sandboxes: Readonly<Record<string, SandboxDraft>>;
  /** Actions under way, by action key (trustKey, trustAllKey, launchKey, sandboxKey): their buttons are disabled. */
  readonly busy: Readonly<Record<string, true>>;
  /** Why an action last failed, by action key: shown beside its button until it is tried again. */
  readonly problems: Readonly<Record<string, string>>;
}

/** A sandbox being changed on a server's card, and the launch it was begun from (a save names it). */
export interface SandboxDraft {
  /** The launch hash shown when the first change was made: a servers.json changed since refuses the save. */
  readonly launchHash: string;
  readonly sandbox: UpstreamSandbox;
}

/** The lists of a sandbox a person adds to and removes from. */
export type SandboxList = 'writable' | 'readable' | 'env';

/** A tool of a server, as the person's choices are keyed. */
export function toolKey(server: string, tool: string): string {
  return `${server}/${tool}`;
}

/** One definition of a tool: a confirmation of its findings holds for this definition only. */
export function findingsKey(server: string, tool: UpstreamToolView): string {
  return `${server}/${tool.name}#${tool.definitionHash}`;
}

/** The key of one tool's "Trust" action. */
export function trustKey(server: string, tool: string): string {
  return `trust:${toolKey(server, tool)}`;
}

/** The key of a server's "Trust all shown" action. */
export function trustAllKey(server: string): string {
  return `trust-all:${server}`;
}

/** The key of a server's "Approve launch" action. */
export function launchKey(server: string): string {
  return `launch:${server}`;
}

/** The key of a server's "Save sandbox" action. */
export function sandboxKey(server: string): string {
  return `sandbox:${server}`;
}

/** The sandbox a server's card shows for changing: the person's unsaved draft, else the server's own. */
export function shownSandbox(state: UpstreamReviewState, server: UpstreamServerView): UpstreamSandbox | undefined {
  return state.sandboxes[server.name]?.sandbox ?? server.sandbox;
}

/** The tools of a server that wait for the person: never reviewed, or changed since they were. */
export function toolsToReview(server: UpstreamServerView): UpstreamToolView[] {
  return server.tools.filter((tool) => tool.pin !== 'trusted');
}

/** The class a tool's review form shows: the person's choice, else the tool's own (the server's hint). */
export function shownClass(state: UpstreamReviewState, server: string, tool: UpstreamToolView): ToolClass {
  return state.classes[toolKey(server, tool.name)] ?? tool.class;
}

/** The capabilities a tool's form shows: as the person typed them, or the class's own. */
export function shownCapabilities(state: UpstreamReviewState, server: string, tool: UpstreamToolView): string {
  return state.capabilityText[toolKey(server, tool.name)] ?? (tool.class.capabilities ?? []).join(' ');
}

/** Typed capabilities (spaces or commas between them) read as a list; or what is wrong with one. */
export function readCapabilities(text: string): string[] | { wrong: string } {
  const words = [...new Set(text.split(/[\s,]+/).filter(Boolean))];
  if (words.length > 16) return { wrong: `${countOf(words.length, 'capability', { plural: 'capabilities' })} are more than a tool may need (16)` };
  for (const word of words) {
    if (!CapabilitySchema.safeParse(word).success) return { wrong: `"${word}" is not a capability: write kind:access[:scope], e.g. net:read:api.github.com or fs:write` };
  }
  return words;
}

function without<T>(record: Readonly<Record<string, T>>, keys: readonly string[]): Record<string, T> {
  const copy = { ...record };
  for (const key of keys) delete copy[key];
  return copy;
}

/**
 * The upstream servers' overview and the person's review of it: loads the overview, follows
 * upstreamChanged, keeps the classes chosen in review forms and the sandboxes being changed, and
 * sends a review, a launch approval or a sandbox naming exactly the hashes shown. A refused action
 * keeps every choice and says why.
 */
export class UpstreamReview {
  /** The state the section renders. */
  readonly store: StoreApi<UpstreamReviewState> = createStore<UpstreamReviewState>()(() => ({
    overview: undefined,
    loadProblem: undefined,
    classes: {},
    capabilityText: {},
    confirmed: {},
    sandboxes: {},
    busy: {},
    problems: {},
  }));
  /** Counts overviews shown, so a load that raced a newer event or answer does not bring back its older overview. */
  private shown = 0;
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly bridge: ConsoleBridge) {}

  /** Follows upstreamChanged until stop(); safe to call again after stop(). */
  start(): void {
    this.unsubscribe ??= this.bridge.onUpstreamChanged((overview) => this.show(overview));
  }

  /** Stops following the gate's events; safe to call twice. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  /** Loads the overview (on opening, and again after a reconnect). */
  async load(): Promise<void> {
    const before = this.shown;
    try {
      const overview = await this.bridge.upstreamServers({});
      if (this.shown === before) this.show(overview);
    } catch (error) {
      this.store.setState({ loadProblem: `Could not load the MCP servers: ${describe(error)}` });
    }
  }

  /** Sets the tier a tool's review form shows. */
  chooseTier(server: string, tool: UpstreamToolView, tier: SecurityTier): void {
    this.store.setState((s) => ({ classes: { ...s.classes, [toolKey(server, tool.name)]: { ...shownClass(s, server, tool), tier } } }));
  }

  /** Ticks or clears one side effect in a tool's review form (kept in the schema's order). */
  chooseSideEffect(server: string, tool: UpstreamToolView, effect: SideEffect, on: boolean): void {
    this.store.setState((s) => {
      const current = shownClass(s, server, tool);
      const chosen = new Set(current.sideEffects);
      if (on) chosen.add(effect);
      else chosen.delete(effect);
      const sideEffects = SideEffectSchema.options.filter((option) => chosen.has(option));
      return { classes: { ...s.classes, [toolKey(server, tool.name)]: { ...current, sideEffects } } };
    });
  }

  /** Sets the capabilities a tool's review form shows, as typed (checked when it is trusted). */
  chooseCapabilities(server: string, tool: UpstreamToolView, text: string): void {
    this.store.setState((s) => ({ capabilityText: { ...s.capabilityText, [toolKey(server, tool.name)]: text } }));
  }

  /** Records whether the person trusts this definition of a tool despite its findings. */
  confirmFindings(server: string, tool: UpstreamToolView, confirmed: boolean): void {
    const key = findingsKey(server, tool);
    this.store.setState((s) => ({ confirmed: confirmed ? { ...s.confirmed, [key]: true } : without(s.confirmed, [key]) }));
  }

  /** Trusts one tool as shown, with the class its form shows. */
  trustTool(server: string, tool: string): Promise<void> {
    return this.trust(server, [tool], trustKey(server, tool));
  }

  /** Trusts every tool of a server that waits for review, each with the class its form shows. */
  trustAllShown(server: string): Promise<void> {
    const shown = this.store.getState().overview?.servers.find((candidate) => candidate.name === server);
    return this.trust(server, shown ? toolsToReview(shown).map((tool) => tool.name) : [], trustAllKey(server));
  }

  /** Approves a stdio server's launch as shown (its launch hash); the gate starts it. */
  async approveLaunch(server: string): Promise<void> {
    const shown = this.store.getState().overview?.servers.find((candidate) => candidate.name === server);
    const key = launchKey(server);
    if (!shown) return this.fail(key, `${server} is no longer in the servers file; nothing was started.`);
    await this.send(key, () => this.bridge.approveUpstreamLaunch({ server, launchHash: shown.launchHash }), () => undefined);
  }

  /** Turns a stdio server's network on or off in its sandbox draft (sent by saveSandbox). */
  setSandboxNetwork(server: string, network: boolean): void {
    this.editSandbox(server, (sandbox) => ({ ...sandbox, network }));
  }

  /**
   * Adds a folder (writable, readable) or a variable name (env) to a server's sandbox draft; blank
   * or already listed, nothing changes. Whether it is sound (an absolute folder, a variable name)
   * is the gate's to say when it is saved, by the rules servers.json is held to.
   */
  addSandboxEntry(server: string, list: SandboxList, entry: string): void {
    const value = entry.trim();
    if (value === '') return;
    this.editSandbox(server, (sandbox) => (sandbox[list].includes(value) ? sandbox : { ...sandbox, [list]: [...sandbox[list], value] }));
  }

  /** Removes a folder or a variable name from a server's sandbox draft. */
  removeSandboxEntry(server: string, list: SandboxList, entry: string): void {
    this.editSandbox(server, (sandbox) => ({ ...sandbox, [list]: sandbox[list].filter((item) => item !== entry) }));
  }

  /** Drops a server's sandbox draft: its card shows the sandbox servers.json sets again. */
  discardSandbox(server: string): void {
    this.store.setState((s) => ({ sandboxes: without(s.sandboxes, [server]), problems: without(s.problems, [sandboxKey(server)]) }));
  }

  /**
   * Sends a server's sandbox draft with the launch hash it was begun from: the gate writes it into
   * servers.json and answers the overview, where the server's new launch waits for approval. A
   * refusal (a relative folder, a launch changed since) keeps the draft and says why.
   */
  async saveSandbox(server: string): Promise<void> {
    const key = sandboxKey(server);
    const draft = this.store.getState().sandboxes[server];
    if (!draft) return this.fail(key, 'Nothing to save: change the sandbox first.');
    await this.send(
      key,
      () => this.bridge.setUpstreamSandbox({ server, sandbox: draft.sandbox, launchHash: draft.launchHash }),
      () => this.store.setState((s) => ({ sandboxes: without(s.sandboxes, [server]) })),
    );
  }

  /** Changes a server's sandbox draft, beginning one from the server as shown. */
  private editSandbox(server: string, change: (sandbox: UpstreamSandbox) => UpstreamSandbox): void {
    this.store.setState((s) => {
      const shown = s.overview?.servers.find((candidate) => candidate.name === server);
      const draft = s.sandboxes[server] ?? (shown?.sandbox ? { launchHash: shown.launchHash, sandbox: shown.sandbox } : undefined);
      if (!draft) return {};
      return { sandboxes: { ...s.sandboxes, [server]: { ...draft, sandbox: change(draft.sandbox) } } };
    });
  }

  /** The review of `names` exactly as shown: their definition hashes and the classes in their forms; or why it cannot be sent. */
  private reviewRequest(server: string, names: readonly string[]): UpstreamReviewRequest | string {
    const state = this.store.getState();
    const shown = state.overview?.servers.find((candidate) => candidate.name === server);
    if (!shown) return `${server} is no longer in the servers file; nothing was trusted.`;
    const tools = names.map((name) => shown.tools.find((tool) => tool.name === name));
    if (tools.length === 0) return `${server} has no tool waiting for review.`;
    const missing = names.filter((_, index) => !tools[index]);
    if (missing.length > 0) return `${server} no longer lists ${missing.join(', ')}; nothing was trusted.`;
    const listed = tools as UpstreamToolView[];
    const unconfirmed = listed.filter((tool) => tool.findings.length > 0 && !state.confirmed[findingsKey(server, tool)]);
    if (unconfirmed.length > 0) {
      return `Tick "Trust despite its findings" for ${unconfirmed.map((tool) => tool.name).join(', ')} first: its definition holds text that may be aimed at the model. Nothing was trusted.`;
    }
    const classes: ToolClass[] = [];
    for (const tool of listed) {
      const capabilities = readCapabilities(shownCapabilities(state, server, tool));
      if (!Array.isArray(capabilities)) return `${tool.name}: ${capabilities.wrong}. Nothing was trusted.`;
      const { capabilities: _shown, ...chosen } = shownClass(state, server, tool);
      classes.push(capabilities.length > 0 ? { ...chosen, capabilities } : chosen);
    }
    return {
      server,
      tools: listed.map((tool, index) => ({ name: tool.name, definitionHash: tool.definitionHash, class: classes[index]! })),
    };
  }

  private async trust(server: string, names: readonly string[], key: string): Promise<void> {
    const request = this.reviewRequest(server, names);
    if (typeof request === 'string') return this.fail(key, request);
    const trusted = request.tools.map((tool) => toolKey(server, tool.name));
    await this.send(
      key,
      () => this.bridge.reviewUpstream(request),
      // Their forms are done with: the overview now holds the classes the person chose.
      () => this.store.setState((s) => ({ classes: without(s.classes, trusted), capabilityText: without(s.capabilityText, trusted) })),
    );
  }

  /** Sends one action; its answer (the new overview) replaces the shown one, a failure is kept under its key. */
  private async send(key: string, action: () => Promise<UpstreamOverview>, onSuccess: () => void): Promise<void> {
    if (this.store.getState().busy[key]) return;
    this.store.setState((s) => ({ busy: { ...s.busy, [key]: true }, problems: without(s.problems, [key]) }));
    try {
      const overview = await action();
      this.show(overview);
      onSuccess();
    } catch (error) {
      this.fail(key, describe(error));
    } finally {
      this.store.setState((s) => ({ busy: without(s.busy, [key]) }));
    }
  }

  private fail(key: string, problem: string): void {
    this.store.setState((s) => ({ problems: { ...s.problems, [key]: problem } }));
  }

  private show(overview: UpstreamOverview): void {
    this.shown += 1;
    this.store.setState({ overview, loadProblem: undefined });
  }
}
