import { GateError } from '../../shared/errors';
import type { GateInfo } from '../../shared/contract';
import type { UpstreamOverview, UpstreamReviewRequest, UpstreamSandboxRequest } from '../../shared/upstream';
import type { SandboxFact } from '../../shared/health';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import { checkPromptEdit, checkPromptRules, decideApproval } from '../approvals/scopedApproval';
import { keepPermission, listPermissions, revokePermission, type AgentNamer } from '../policy/permissions';
import type { PolicyEngine } from '../policy/policyEngine';
import type { AuditStore } from '../audit/auditStore';
import { noAuditViews, type AuditViews } from '../audit/auditViews';
import type { ConsoleBackend } from '../bridge/consoleBackend';
import type { CallTracker } from '../executor/callTracker';
import { ToolStatusBoard } from '../health/toolStatusBoard';
import type { ToolRegistry } from '../registry/registry';
import { builtAssets, toolgateVersion } from '../state/paths';
import type { GateEvents } from './gateEvents';
import { GateVitals } from './gateVitals';
import type { UndoService } from '../undo/undoService';
import type { MemoryConsole } from '../tools/memory/memoryConsole';
import { NO_TEAM_HANDLERS } from '../team/teamHandlers';

/** The gate pieces the console reads and answers. */
export interface ConsoleSources {
  registry: ToolRegistry;
  approvals: ApprovalQueue;
  audit: AuditStore;
  calls: CallTracker;
  events: GateEvents;
  info: () => Omit<GateInfo, 'version' | 'sandbox'>;
  /** Stops a call under way (the executor's stop); without it, no call can be stopped from the console. */
  stopCall?: (callId: string) => boolean;
  /** Tools with health, effective tier and the sandbox fact; without it, nothing is known about either. */
  toolStatus?: ToolStatusBoard;
  /** The policy engine: scoped approvals, rule checks and the Permissions view need it (absent: a fixed policy). */
  policyEngine?: PolicyEngine;
  /** Names an agent session by its MCP client, for the Permissions view. */
  nameAgent?: AgentNamer;
  /** The audit explorer's queries, export, replay and checkpoint status (absent: each says it is not there). */
  auditViews?: AuditViews;
  /** The person's own MCP servers behind the gate (absent: none, and reviews are refused). */
  upstream?: UpstreamConsole;
  /** Effects and undo (absent: nothing is recorded, so nothing can be undone). */
  undo?: UndoService;
  /** The workspace's memory notes (absent: this gate keeps none). */
  memory?: MemoryConsole;
}

/** What the console asks of the upstream servers. */
export interface UpstreamConsole {
  overview(): UpstreamOverview;
  review(request: UpstreamReviewRequest): Promise<UpstreamOverview>;
  approveLaunch(server: string, launchHash: string): Promise<UpstreamOverview>;
  /** Writes a stdio server's sandbox into servers.json and takes it in: its new launch waits for approval. */
  setSandbox(request: UpstreamSandboxRequest): Promise<UpstreamOverview>;
}

/** The console's view of a gate with no upstream servers. */
const NO_UPSTREAM: UpstreamOverview = { file: '', servers: [], refused: [] };

function noUpstream(): never {
  throw new GateError('ENOTFOUND', 'this gate serves no upstream MCP servers; add them to servers.json in the Toolgate home');
}

/** The undo service, or the error saying this gate has none. */
function noUndo(undo: UndoService | undefined): UndoService {
  if (!undo) throw new GateError('EUNAVAILABLE', 'this gate records no effects of calls, so it cannot undo them');
  return undo;
}

/** The memory console, or the error saying this gate keeps no notes. */
function noMemory(memory: MemoryConsole | undefined): MemoryConsole {
  if (!memory) throw new GateError('EUNAVAILABLE', 'this gate keeps no memory notes');
  return memory;
}

/** What the console is told when no board says otherwise: nothing was checked, so no sandbox is claimed. */
const UNCHECKED_SANDBOX: SandboxFact = { kind: 'none', reason: 'this gate does not check for one' };

/** The board of a gate that was given none: declared tiers, health unknown, no sandbox claimed. */
function fallbackBoard(registry: ToolRegistry): ToolStatusBoard {
  return new ToolStatusBoard({
    registry,
    health: { status: () => ({ state: 'unknown' }), isAvailable: () => true },
    sandbox: UNCHECKED_SANDBOX,
  });
}

/** The console's view of the gate: one handler per bridge method, and its events. */
export function createConsoleBackend(sources: ConsoleSources): ConsoleBackend {
  const version = toolgateVersion();
  const board = sources.toolStatus ?? fallbackBoard(sources.registry);
  const views = sources.auditViews ?? noAuditViews();
  // Started with the console's backend, so the lag of the gate's whole life is on record.
  const vitals = new GateVitals();
  const scoped = { approvals: sources.approvals, engine: sources.policyEngine, recent: (limit: number) => sources.audit.list({ limit }) };
  return {
    handlers: {
      getInfo: async () => ({ version, ...sources.info(), sandbox: board.sandbox }),
      listTools: async () => board.list(),
      listCalls: async () => sources.calls.list(),
      listApprovals: async () => sources.approvals.list(),
      decideApproval: (request) => decideApproval(scoped, request),
      checkRules: ({ approvalId, rules, scope }) => checkPromptRules(scoped, approvalId, rules, scope),
      checkEdit: ({ approvalId, edit }) => checkPromptEdit(scoped, approvalId, edit),
      listPermissions: async () => (sources.policyEngine ? listPermissions(sources.policyEngine, sources.nameAgent) : []),
      revokePermission: async ({ id }) => ({ revoked: sources.policyEngine ? await revokePermission(sources.policyEngine, id) : false }),
      keepPermission: async ({ id, file }) => {
        if (!sources.policyEngine) throw new GateError('EUNAVAILABLE', 'this gate runs without a policy engine: there are no grants to keep');
        return { file: await keepPermission(sources.policyEngine, id, file) };
      },
      denyAllFromAgent: async ({ agentSession, reason }) => ({ denied: sources.approvals.denyAllFrom(agentSession, reason).length }),
      listAudit: async ({ limit, beforeSeq, callId }) => sources.audit.list({ limit, beforeSeq, callId }),
      // A large log's chain is walked in worker threads: the gate keeps answering agents meanwhile.
      verifyAudit: () => sources.audit.verifyInThreads(builtAssets().chainWorker),
      exploreCalls: (request) => views.explore(request),
      callDetail: (request) => views.detail(request),
      explorerStats: (request) => views.stats(request),
      exportCalls: (request) => views.exportView(request),
      replayCall: (request) => views.replay(request),
      checkpointStatus: () => views.checkpoint(),
      callEffects: async ({ callId }) => noUndo(sources.undo).effects(callId) ?? null,
      undoCall: (request) => noUndo(sources.undo).undo(request),
      memoryNotes: async (request) => noMemory(sources.memory).notes(request),
      deleteNote: ({ id }) => noMemory(sources.memory).delete(id),
      diagnostics: async ({ reset }) => vitals.read(reset),
      stopCall: async ({ callId }) => ({ stopped: sources.stopCall?.(callId) ?? false }),
      upstreamServers: async () => sources.upstream?.overview() ?? NO_UPSTREAM,
      reviewUpstream: async (request) => (sources.upstream ? sources.upstream.review(request) : noUpstream()),
      approveUpstreamLaunch: async ({ server, launchHash }) => (sources.upstream ? sources.upstream.approveLaunch(server, launchHash) : noUpstream()),
      setUpstreamSandbox: async (request) => (sources.upstream ? sources.upstream.setSandbox(request) : noUpstream()),
      // A gate in a team answers these through the team (createGate puts teamHandlers over them).
      ...NO_TEAM_HANDLERS,
    },
    subscribe: (event, listener) => sources.events.subscribe(event, listener),
  };
}
