import { realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { GateError } from '../../shared/errors';
import type { SettingsReport } from '../../shared/settings';
import { inertText } from '../../shared/inertText';
import { mutatingEffects, type Capability } from '../../shared/manifest';
import { ApprovalQueue } from '../approvals/approvalQueue';
import { AuditStore, type AuditDurability } from '../audit/auditStore';
import { createAuditViews } from '../audit/createAuditViews';
import { loadFastBlake3 } from '../audit/fastBlake3';
import { startCheckpoints, type CheckpointOptions } from '../audit/startCheckpoints';
import { OtlpStreamer, type OtlpStreamOptions } from '../audit/otlpStream';
import type { ConsoleBackend } from '../bridge/consoleBackend';
import { CallTracker } from '../executor/callTracker';
import { CallRedactions } from '../executor/callRedactions';
import { CallLogs, STDERR_LEVEL } from '../executor/callLogs';
import { OutputRedaction } from '../executor/outputRedaction';
import { detectCgroups } from '../hosts/cgroupLimits';
import { ToolHealthMonitor } from '../health/toolHealth';
import { ToolStatusBoard } from '../health/toolStatusBoard';
import { effectiveTier } from '../policy/sandboxTier';
import { Executor } from '../executor/executor';
import { EffectsRecorder } from '../executor/steps/recordEffects';
import { DEFAULT_STORE_BYTES, ImageStore } from '../undo/imageStore';
import { UndoService } from '../undo/undoService';
import { CallScheduler } from '../executor/scheduler';
import { createChildProcessHost } from '../hosts/childProcessHost';
import { detectSandbox, profileFor, type SandboxInfo, type SandboxMode } from '../hosts/sandbox';
import { sandboxIsolation } from '../hosts/sandboxIsolation';
import { protectedWriteGrants } from '../hosts/workspaceGuard';
import { toolEnvironment } from '../hosts/toolEnvironment';
import type { ToolProcessFactory } from '../hosts/toolProcess';
import { ToolProcessPool } from '../hosts/toolProcessPool';
import { ChainSecretProvider, EnvironmentSecretProvider, FileSecretProvider, type SecretProvider } from '../secrets/secretProvider';
import { PolicyEngine } from '../policy/policyEngine';
import type { Policy } from '../policy/tierPolicy';
import type { PolicyMode } from '../../shared/policy';
import { ToolRegistry } from '../registry/registry';
import { builtAssets, runtimeFolder, statePaths, toolgateRoot } from '../state/paths';
import { ensureHome } from '../state/stateFolder';
import { BUILTIN_TOOLS } from '../tools/builtinTools';
import { registerGateTools } from '../tools/gateTools';
import { MemoryConsole } from '../tools/memory/memoryConsole';
import type { WebSearchSettings } from '../tools/webSearch/searchSettings';
import { loadToolModule } from '../tools/loadToolModule';
import { isManifestFile, loadPinnedManifestTool } from '../tools/sources/manifestFile';
import { startToolsHome } from '../tools/sources/toolsHomeWatch';
import { isInside } from '../tools/workspacePath';
import { AgentDirectory } from '../mcp/agentDirectory';
import { startUpstream } from '../upstream/startUpstream';
import { DEFAULT_GRANT_TTL_MS } from '../hooks/bashInGate';
import { HookJudge } from '../hooks/hookJudge';
import type { TeamMode, TeamOptions } from '../team/teamMode';
import { teamHandlers } from '../team/teamHandlers';
import { CheckpointWitness } from '../team/checkpointWitness';
import { createConsoleBackend } from './consoleHandlers';
import { GateEvents } from './gateEvents';

/** How to build a gate. */
export interface GateOptions {
  /** The state folder (audit, token). */
  home: string;
  /** The folder file tools are confined to. */
  workspace: string;
  /** Starts tool processes; Node child processes unless the desktop shell passes utilityProcess. */
  hostFactory?: ToolProcessFactory;
  /** Warm tool processes to keep. */
  poolSize?: number;
  /** How long a prompt waits for a person. */
  approvalTimeoutMs?: number;
  /** Extra ES modules of tools (absolute paths). */
  toolModules?: string[];
  /** Capabilities granted to tools. */
  grants?: Capability[];
  /** The decision maker; by default the policy engine over the policy files, with the tier defaults as its fallback. */
  policy?: Policy;
  /** strict, standard (the default) or permissive: how calls no rule decides are treated. */
  policyMode?: PolicyMode;
  /** The managed policy file (default /etc/toolgate/policy.json). */
  managedPolicyFile?: string;
  /** Allow rules given as `--grant` flags, e.g. `shell_exec(npm test)`. */
  policyRules?: string[];
  /** Refuse tools that write or spawn. */
  readOnly?: boolean;
  /** Where tool-process log lines go (secrets redacted). */
  onToolLog?: (callId: string | undefined, stream: 'stdout' | 'stderr', line: string) => void;
  /** Tool processes in bubblewrap when it works ('auto', the default), always ('require': refuse to start without), or never. */
  sandbox?: SandboxMode;
  /**
   * Where `$ENV.NAME` placeholders are looked up; by default the state folder's secrets file, then
   * the environment variables named in `secretEnv`. Every secret it knows is redacted everywhere.
   */
  secrets?: SecretProvider;
  /** Environment variables tools may receive as `$ENV.NAME` (`toolgate serve --secret-env NAME`); no other variable ever is. */
  secretEnv?: string[];
  /** Calls that may wait for their turn before new ones get EQUOTA. */
  maxQueued?: number;
  /** Prompts one agent session may have waiting before its next ones get EQUOTA (default 50). */
  maxPendingPerSession?: number;
  /** Prompts all agents may have waiting before new ones get EQUOTA (default 500). */
  maxPending?: number;
  /** The settings this gate was started with and where each came from, for the console's Settings view. */
  settings?: SettingsReport;
  /** What a committed audit record survives (settings `auditDurability`; default "process"). */
  auditDurability?: AuditDurability;
  /** Signed checkpoints of the audit log, kept outside the state folder and the workspace (absent: none). */
  checkpoints?: CheckpointOptions;
  /** Send each ended call's span to this OTLP/HTTP endpoint (settings `otlpEndpoint`); failures are logged once through `log`. */
  otlp?: Pick<OtlpStreamOptions, 'endpoint' | 'headers' | 'log'>;
  /** Claude Code's allowed Bash calls run in the gate's sandbox, as shell_exec (default true); false: Claude Code runs them on the host. */
  claudeCodeBashInGate?: boolean;
  /** Bytes the undo store keeps of files as calls found them (default 1 GiB); past it the oldest are dropped. */
  undoStoreBytes?: number;
  /** False: calls' effects are not recorded, so nothing they change can be undone (`npm run bench` times calls both ways). */
  recordEffects?: boolean;
  /** The search service web_search asks (settings `webSearch`); absent: no web_search. */
  webSearch?: WebSearchSettings;
  /** Join a team (`--team URL --team-creds FILE`): prompts published, answered by the team's approvers too (absent: no team). */
  team?: TeamOptions;
}

/** The default grants: tools may read and write inside the workspace. */
export const DEFAULT_GRANTS: Capability[] = ['fs:read', 'fs:write'];

/** A gate: the registry, the pipeline and everything it writes to. */
export interface Gate {
  readonly registry: ToolRegistry;
  readonly executor: Executor;
  readonly approvals: ApprovalQueue;
  readonly audit: AuditStore;
  readonly calls: CallTracker;
  readonly events: GateEvents;
  readonly pool: ToolProcessPool;
  /** When each call runs, and what runs now. */
  readonly scheduler: CallScheduler;
  readonly backend: ConsoleBackend;
  readonly workspace: string;
  readonly approvalTimeoutMs: number;
  /** Whether tool processes run in an OS sandbox here. */
  readonly sandbox: SandboxInfo;
  /** Who each MCP session is (client name and version from initialize): the MCP endpoint fills it. */
  readonly agents: AgentDirectory;
  /** Judges Claude Code's own tools from its hooks through this gate's policy, prompts and audit. */
  readonly hooks: HookJudge;
  /** The policy engine (absent when a policy was passed in): session grants are added through it. */
  readonly policyEngine?: PolicyEngine;
  /** The gate's team mode, when it joined one. */
  readonly team?: TeamMode;
  /** Fills in the MCP URL the console shows. */
  setMcpUrl(url: string): void;
  /** Denies pending prompts, stops tool processes, closes the audit log. Idempotent. */
  close(): Promise<void>;
}

function realWorkspace(workspace: string, home: string): string {
  let real: string;
  try {
    real = realpathSync(workspace);
  } catch {
    throw new GateError('ENOTFOUND', `the workspace ${workspace} does not exist; create it or pass another --workspace`);
  }
  if (!statSync(real).isDirectory()) throw new GateError('EVALIDATION', `the workspace ${workspace} is not a directory`);
  // Tools may write anywhere in the workspace: it must not hold the gate's own state or code.
  for (const [what, path] of [
    ['the state folder (audit log, token)', resolve(home)],
    ['Toolgate itself', toolgateRoot()],
  ] as const) {
    if (isInside(real, realpathOrSelf(path))) {
      throw new GateError(
        'EPERMISSION',
        `the workspace ${real} contains ${what} at ${path}, which an agent could then change; pick a folder that does not contain it`,
      );
    }
  }
  return real;
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** Builds a gate with its built-in tools and any tool modules given. */
export async function createGate(options: GateOptions): Promise<Gate> {
  const workspace = realWorkspace(options.workspace, options.home);
  ensureHome(options.home);
  const paths = statePaths(options.home);
  // First: a --secret-env name that is unset or too short refuses the start before anything runs.
  const secrets =
    options.secrets ?? new ChainSecretProvider([new FileSecretProvider(paths.secrets), new EnvironmentSecretProvider(process.env, options.secretEnv ?? [])]);
  // One redaction for everything the gate shows or keeps: results, logs, console events, the audit.
  const redactions = new CallRedactions(secrets);
  const logs = new CallLogs();
  const registry = new ToolRegistry({ readOnly: options.readOnly });
  for (const tool of BUILTIN_TOOLS) {
    // A read-only gate simply goes without the built-ins that write.
    if (!options.readOnly || mutatingEffects(tool.manifest.sideEffects).length === 0) registry.register(tool);
  }
  for (const module of options.toolModules ?? []) {
    if (isManifestFile(module)) {
      const pinned = await loadPinnedManifestTool(module);
      registry.register(pinned.tool, pinned.module);
      continue;
    }
    for (const tool of await loadToolModule(module)) registry.register(tool, module);
  }
  // Memory and web_search, served by the gate: the notes of this workspace only, secrets out before they are kept.
  const gateTools = registerGateTools(registry, { home: options.home, workspace, redact: (value) => redactions.redactValue(value), secrets, ...(options.webSearch ? { webSearch: options.webSearch } : {}) });
  const events = new GateEvents((payload) => redactions.redactValue(payload));
  // What tool processes may read in their sandbox; the tools home adds its manifests and the programs they run.
  const sandboxReadable = [toolgateRoot(), runtimeFolder(), ...(options.toolModules ?? []).map((module) => dirname(resolve(module)))];
  // $TOOLGATE_HOME/tools/*.json: registered held until reviewed, and watched like servers.json.
  const toolsHome = await startToolsHome({
    home: resolve(options.home),
    registry,
    sandboxReadable,
    log: (message) => process.stderr.write(`toolgate: ${message}\n`),
  });
  // A --grant rule that cannot be read refuses the start; a policy file that cannot is refused alone.
  const policyEngine = options.policy
    ? undefined
    : await PolicyEngine.create({
        tools: (name) => registry.get(name)?.tool.manifest,
        workspace,
        home: resolve(options.home),
        managedFile: options.managedPolicyFile,
        mode: options.policyMode,
        flagRules: options.policyRules,
      });
  policyEngine?.onChange(() => events.emit('policyChanged', policyEngine.status()));
  policyEngine?.watch();
  // The console's Verify walks the whole log: with the WebAssembly hash it takes a fraction of the time.
  await loadFastBlake3();
  const audit = new AuditStore({
    path: paths.audit,
    headPath: paths.auditHead,
    durability: options.auditDurability,
    redact: (payload) => redactions.redactValue(payload),
  });
  audit.onAppend((record) => events.emit('auditAppended', record));
  // Before any record is added: a log that no longer matches its checkpoints refuses the start.
  // In a team, each checkpoint is also published, for the others to witness (the team joins below; the witness keeps the newest till then).
  const witness = new CheckpointWitness();
  const checkpoints = startCheckpoints(options.checkpoints, { home: options.home, workspace, audit, onFailure: () => policyEngine?.close(), onWritten: (note, key) => witness.written(note, key) });
  const otlp = options.otlp ? new OtlpStreamer(audit, { log: (message) => process.stderr.write(`toolgate: ${message}\n`), ...options.otlp }) : undefined;
  const approvalTimeoutMs = options.approvalTimeoutMs ?? 5 * 60_000;
  const approvals: ApprovalQueue = new ApprovalQueue({
    timeoutMs: approvalTimeoutMs,
    maxPendingPerSession: options.maxPendingPerSession,
    maxPending: options.maxPending,
    onRequested: (request) => events.emit('approvalRequested', request),
    onResolved: (outcome) => events.emit('approvalResolved', outcome),
    signedDecision: (approvalId) => team?.signedDecision(approvalId),
  });
  const team: TeamMode | undefined = options.team ? await joinTeam(options.team, { approvals, audit, workspace, events, ...(policyEngine ? { policyEngine } : {}) }) : undefined;
  if (team) witness.attach(team);
  const calls = new CallTracker((snapshot) => events.emit('callUpdated', snapshot));
  const hostFactory = options.hostFactory ?? createChildProcessHost;
  // Only child processes can be started inside bubblewrap; another host runs tools bare, and says so.
  const sandbox: SandboxInfo =
    hostFactory === createChildProcessHost
      ? detectSandbox(options.sandbox ?? 'auto')
      : { kind: 'none', reason: 'tool processes run as Electron utility processes, which bubblewrap cannot wrap' };
  if (options.sandbox === 'require' && sandbox.kind === 'none') throw new GateError('EPERMISSION', `no OS sandbox: ${sandbox.reason}`);
  // Escape sequences stay (the console's terminal draws them); secrets do not.
  const streamed = new OutputRedaction(
    () => redactions.current(),
    (callId, chunk) => events.emit('callOutput', { callId, chunk }),
  );
  redactions.onCallEnded((callId) => streamed.flush(callId));
  const grants = options.grants ?? DEFAULT_GRANTS;
  const maxQueued = options.maxQueued ?? 256;
  const scheduler = new CallScheduler({ maxQueued });
  const pool = new ToolProcessPool({
    factory: hostFactory,
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    size: options.poolSize ?? 2,
    // Its first process starts when an agent first reaches the gate (gateHttpServer) or a call
    // comes (the executor): a gate no agent uses holds none.
    warmAtStart: false,
    // A spare for each of the two profiles used last (a write after its prompt, a single-use shell
    // sandbox): each an idle Node of about 80 MB resident, at most two beyond the pool's size, ended
    // after ten minutes without a call of their profile.
    spares: { spares: 2, idleMs: 10 * 60_000 },
    maxQueue: maxQueued,
    cgroups: detectCgroups(),
    isolate: sandboxIsolation(sandbox, {
      workspace,
      readable: sandboxReadable,
      hidden: [resolve(options.home)],
      granted: protectedWriteGrants(grants),
    }),
    onLog: (callId, stream, line) => {
      const shown = inertText(redactions.redactLine(line));
      options.onToolLog?.(callId, stream, shown);
      // A tool's stderr is its log; its stdout is not (a tool answers through its result).
      if (stream === 'stderr') logs.deliver(callId, { level: STDERR_LEVEL, data: shown });
    },
    onOutput: (callId, chunk) => streamed.push(callId, chunk),
  });
  const health = new ToolHealthMonitor({
    tools: () => registry.list().map((manifest) => registry.get(manifest.name)!),
    // initialize() then healthCheck(), in a tool process of the tool's own (read-only) profile.
    probe: async (entry) =>
      // A tool with neither hook has nothing to check: no tool process is spent on it. Nor on a tool
      // held for review: its initialize() is code nobody reviewed (its calls are refused meanwhile).
      (!entry.tool.initialize && !entry.tool.healthCheck) || entry.review?.refusal() !== undefined
        ? { healthy: true }
        : pool.health(
        { tool: entry.tool.manifest.name, module: entry.module, workspace },
        10_000,
        profileFor(entry.tool.manifest.sideEffects, true),
      ),
    onChange: () => events.emit('toolsChanged', toolStatus.list()),
    // Waiting for a free process (up to 10 s, then the check is skipped) plus the check itself.
    probeTimeoutMs: 25_000,
  });
  const toolStatus = new ToolStatusBoard({
    registry,
    health,
    sandbox,
    effectiveTier: (manifest) => effectiveTier(manifest, sandbox),
    sourceOf: (name) => toolsHome.sourceOf(name),
  });
  // Not awaited: a tool whose check hangs must not hold up the gate; until checked, tools are callable.
  void health.start();
  const effects = new EffectsRecorder(
    workspace,
    new ImageStore({ folder: paths.undoStore, maxBytes: options.undoStoreBytes ?? DEFAULT_STORE_BYTES, redact: (text) => redactions.redactLine(text) }),
  );
  // What calls change is recorded unless the gate was started not to (the bench's baseline).
  const recordedEffects = options.recordEffects === false ? {} : { effects };
  const executor = new Executor({
    registry,
    pool,
    audit,
    approvals,
    policy: options.policy ?? policyEngine!,
    calls,
    workspace,
    grants,
    scheduler,
    secrets,
    redactions,
    logs,
    sandbox,
    unavailableReason: (tool) => health.unavailableReason(tool),
    ...recordedEffects,
  });
  // The person's own MCP servers, from servers.json: their tools join the registry as server__tool.
  const upstream = startUpstream({
    home: options.home,
    registry,
    workspace,
    secrets,
    sandbox: hostFactory === createChildProcessHost ? sandbox : detectSandbox(options.sandbox ?? 'auto'),
    onChange: (overview) => events.emit('upstreamChanged', overview),
  });
  // Tools coming and going (an upstream server starting, a review) show in the Tools view at once.
  registry.onChange(() => events.emit('toolsChanged', toolStatus.list()));
  const agents = new AgentDirectory();
  const hooks = new HookJudge({
    registry,
    policy: options.policy ?? policyEngine!,
    approvals,
    audit,
    calls,
    redactions,
    workspace,
    grants,
    programsRunning: () => scheduler.programsRunning() + scheduler.programsWaiting(),
    programsEnded: () => scheduler.programsEnded(),
    bash:
      options.claudeCodeBashInGate === false
        ? { inGate: false, stateFolder: resolve(options.home) }
        : { inGate: true, sandbox, grantTtlMs: DEFAULT_GRANT_TTL_MS, run: (run, tool, input, signal, judgment) => executor.runJudged(run, tool, input, signal, judgment) },
    ...recordedEffects,
  });
  let mcpUrl: string | undefined;
  let closing: Promise<void> | undefined;
  const gate: Gate = {
    registry,
    executor,
    approvals,
    audit,
    calls,
    events,
    pool,
    scheduler,
    workspace,
    approvalTimeoutMs,
    sandbox,
    agents,
    hooks,
    ...(policyEngine ? { policyEngine } : {}),
    ...(team ? { team } : {}),
    backend: withTeam(team, createConsoleBackend({
      registry,
      approvals,
      audit,
      calls,
      events,
      toolStatus,
      stopCall: (callId) => executor.stop(callId),
      nameAgent: (agentSession) => agents.name(agentSession),
      auditViews: createAuditViews({ audit, registry, executor, home: options.home, checkpoints }),
      ...(policyEngine ? { policyEngine } : {}),
      upstream: {
        overview: () => upstream.gateway.overview(),
        review: (request) => upstream.gateway.review(request),
        approveLaunch: (server, launchHash) => upstream.gateway.approveLaunch(server, launchHash),
        setSandbox: (request) => upstream.setSandbox(request),
      },
      undo: new UndoService({ audit, calls, redactions, scheduler, recorder: effects, workspace, grants }),
      memory: new MemoryConsole(gateTools.notes, { audit, calls, redactions }),
      info: () => ({ workspace, approvalTimeoutMs, undoStore: effects.store.usage(), ...(policyEngine ? { policy: policyEngine.status() } : {}), ...(mcpUrl ? { mcpUrl } : {}), ...(options.settings ? { settings: options.settings } : {}) }),
    })),
    setMcpUrl: (url) => {
      mcpUrl = url;
    },
    close: () => {
      closing ??= (async () => {
        health.close();
        toolsHome.close();
        await upstream.close();
        policyEngine?.close();
        streamed.close();
        approvals.close();
        // After the prompts are withdrawn, before the log closes: calls still waiting for Claude Code's outcome end here.
        hooks.close();
        scheduler.close();
        effects.close();
        await pool.close();
        await otlp?.close();
        events.clear();
        checkpoints?.close();
        // After the last checkpoint and the withdrawals are queued: the link sends what it can before it closes.
        await team?.close();
        audit.close();
        gateTools.close();
      })();
      return closing;
    },
  };
  return gate;
}

/** Starts the gate's team mode: its prompts and their ends published as the console gets them (redacted), its status pushed to the console. */
async function joinTeam(options: TeamOptions, gate: { approvals: ApprovalQueue; audit: AuditStore; workspace: string; events: GateEvents; policyEngine?: PolicyEngine }): Promise<TeamMode> {
  // The NATS client is loaded only by a gate that joins a team.
  const { TeamMode } = await import('../team/teamMode');
  const team = new TeamMode(options, gate);
  gate.events.subscribe('approvalRequested', (request) => team.promptRaised(request));
  gate.events.subscribe('approvalResolved', (outcome) => team.promptEnded(outcome));
  team.onChange((status) => gate.events.emit('teamChanged', status));
  return team.start();
}

/** The console's handlers, with the team's over them when the gate is in one. */
function withTeam(team: TeamMode | undefined, backend: ConsoleBackend): ConsoleBackend {
  return team ? { ...backend, handlers: teamHandlers(backend.handlers, team) } : backend;
}
