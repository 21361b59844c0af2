import { GateError } from '../../shared/errors';
import { mutatingEffects, type ToolManifest } from '../../shared/manifest';
import type { Preview } from '../../shared/approval';
import type { AgentInfo } from '../../shared/call';
import type { TextFinding } from '../../shared/upstream';
import type { ToolLogLine } from '../executor/callLogs';
import type { RunOutcome } from '../hosts/toolCall';
import type { DefinedTool } from './defineTool';

/** Where the tool process finds a tool's code: the built-in set, or an ES module's absolute path. */
export type ToolModule = 'builtin' | (string & {});

/** What an external tool's run is given. */
export interface ExternalRunContext {
  callId: string;
  /** Withdraws the call (the agent cancelled it, or a person stopped it). */
  signal?: AbortSignal;
  timeoutMs: number;
  /** The hash of the preview the person approved, when they approved one: what runs must still match it. */
  approvedPreviewHash?: string;
  /** Progress the tool reports, passed on to the agent. */
  onProgress?: (progress: { progress: number; total?: number; message?: string }) => void;
  /** The agent session the call came from: a log line its server sends is passed on only where it is clearly this call's. */
  agentSession?: string;
  /** Who that session says it is (its MCP client's name and version), for what a tool keeps of its author. */
  agent?: AgentInfo;
  /** A log line the tool's server sent while the call ran, passed on (redacted) to the agent. */
  onLog?: (line: ToolLogLine) => void;
}

/**
 * A tool whose code is not Toolgate's and runs elsewhere: an upstream MCP server's tool. The gate's
 * pipeline is the same (validation, policy, approval, audit, canonical JSON and hash, output cap);
 * only checking arguments, previewing and running go through this instead of a tool process.
 */
export interface ExternalRunner {
  /**
   * Set for a tool of Toolgate's own that the gate serves itself (memory, web_search): its result
   * is data like a built-in's, not an upstream server's content blocks, and it takes no server's secrets.
   */
  readonly servedByGate?: boolean;
  /**
   * Whether it runs where a sandbox leaves it nothing to change and no network, whatever its class
   * declares: a stdio server in bubblewrap with no network and nothing writable. A call of it may
   * then run before its steps are in the log, written whole at its end; absent means no.
   */
  staysLocal?(): boolean;
  /**
   * Whether the program behind it may change this machine's files while a call of it runs (a stdio
   * server run unsandboxed, or sandboxed with a writable folder): such a call counts as a program the
   * gate started, as a shell_exec does (CallScheduler.programsRunning). Absent means no.
   */
  changesFiles?(): boolean;
  /** Checks arguments against the tool's own JSON Schema: what is wrong, or undefined. */
  validate(input: unknown): string | undefined;
  /** What the person sees before deciding. */
  preview(input: unknown): Promise<Preview>;
  /** Runs the approved call. Never throws: a failure is an outcome. */
  run(input: unknown, context: ExternalRunContext): Promise<RunOutcome>;
  /** Why it cannot be called now (its definition changed since review, its server is down), if it cannot. */
  unavailable(): string | undefined;
  /** Why every call of it asks a person whatever the rules say (never reviewed), if it must. */
  mustAsk(): string | undefined;
  /** Whether agents see it in tools/list (an unreviewed or changed definition stays hidden). */
  listed(): boolean;
  /** What in a result it returned (as the agent gets it, secrets out) may be aimed at the model: told, never acted on. */
  resultFindings(data: unknown): TextFinding[];
}

/** A tool as the registry holds it. */
export interface RegisteredTool {
  /** Manifest, schemas and code. */
  readonly tool: DefinedTool;
  /** The module the tool process loads it from. */
  readonly module: ToolModule;
  /** Set for a tool that runs outside Toolgate's tool processes (an upstream server's). */
  readonly external?: ExternalRunner;
  /** Set for a tool held to a review (a tools-home manifest): why it may not run now, if it may not. */
  readonly review?: ReviewHold;
}

/** A tool's standing against its review, asked at each call and each tools/list. */
export interface ReviewHold {
  /** Why it may not run (never reviewed, or changed since), naming the review command; undefined when trusted. */
  refusal(): string | undefined;
}

/** Whether the tool is an upstream MCP server's (external and not served by the gate itself). */
export function isUpstream(entry: RegisteredTool): boolean {
  return entry.external !== undefined && entry.external.servedByGate !== true;
}

/** Options of a registry. */
export interface RegistryOptions {
  /** Refuse tools that write or spawn (seed 004's read-only mode, for brainstorming sessions). */
  readOnly?: boolean;
}

/** The tools the gate knows, by unique name. */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  private readonly listeners = new Set<() => void>();
  private notifying = false;
  readonly readOnly: boolean;

  constructor(options: RegistryOptions = {}) {
    this.readOnly = options.readOnly ?? false;
  }

  /** Calls the listener after tools were added or removed (agents are told their list changed). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds a tool that runs outside Toolgate's tool processes (see register for what is refused). */
  registerExternal(tool: DefinedTool, external: ExternalRunner): void {
    this.register(tool, 'builtin', external);
  }

  /** Adds a tool; refuses a duplicate name, and in read-only mode any mutating tool. */
  register(tool: DefinedTool, module: ToolModule = 'builtin', external?: ExternalRunner, review?: ReviewHold): void {
    const { name, sideEffects } = tool.manifest;
    if (this.tools.has(name)) {
      throw new GateError('EVALIDATION', `a tool named ${name} is already registered; remove it first or pick another name`);
    }
    if (this.readOnly) {
      const mutating = mutatingEffects(sideEffects);
      if (mutating.length > 0) {
        throw new GateError(
          'EPERMISSION',
          `the registry is read-only and ${name} declares ${mutating.join(', ')}; start without read-only mode to use it`,
        );
      }
    }
    this.tools.set(name, { tool, module, ...(external ? { external } : {}), ...(review ? { review } : {}) });
    this.changed();
  }

  /** The tool of that name, if registered. */
  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** The manifests of all tools, sorted by name. */
  list(): ToolManifest[] {
    return this.manifests(() => true);
  }

  /** The manifests agents see in tools/list: all but tools held back (changed since review, unreviewed, or suspect). */
  listed(): ToolManifest[] {
    return this.manifests((entry) => (entry.external?.listed() ?? true) && entry.review?.refusal() === undefined);
  }

  private manifests(shown: (entry: RegisteredTool) => boolean): ToolManifest[] {
    return [...this.tools.values()]
      .filter(shown)
      .map((entry) => entry.tool.manifest)
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Removes a tool; returns whether it was there. */
  remove(name: string): boolean {
    const removed = this.tools.delete(name);
    if (removed) this.changed();
    return removed;
  }

  /** Removes every tool. */
  clear(): void {
    this.tools.clear();
    this.changed();
  }

  /**
   * Tells the listeners, once for all the changes made in one turn (a server's fifty tools
   * registered together are one change); one that throws does not keep the others from hearing it.
   */
  changed(): void {
    if (this.notifying) return;
    this.notifying = true;
    queueMicrotask(() => {
      this.notifying = false;
      for (const listener of this.listeners) {
        try {
          listener();
        } catch {
          // A listener's failure (a closed MCP session) is its own.
        }
      }
    });
  }
}
