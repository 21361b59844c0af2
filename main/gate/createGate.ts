import { realpathSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { GateError } from '../../shared/errors';
import { mutatingEffects, type Capability } from '../../shared/manifest';
import { ApprovalQueue } from '../approvals/approvalQueue';
import { AuditStore } from '../audit/auditStore';
import type { ConsoleBackend } from '../bridge/consoleBackend';
import { CallTracker } from '../executor/callTracker';
import { Executor } from '../executor/executor';
import { createChildProcessHost } from '../hosts/childProcessHost';
import { toolEnvironment } from '../hosts/toolEnvironment';
import type { ToolProcessFactory } from '../hosts/toolProcess';
import { ToolProcessPool } from '../hosts/toolProcessPool';
import { tierPolicy, type Policy } from '../policy/tierPolicy';
import { ToolRegistry } from '../registry/registry';
import { builtAssets, statePaths, toolgateRoot } from '../state/paths';
import { ensureHome } from '../state/stateFolder';
import { BUILTIN_TOOLS } from '../tools/builtinTools';
import { loadToolModule } from '../tools/loadToolModule';
import { isInside } from '../tools/workspacePath';
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
  /** The decision maker; the tier policy by default. */
  policy?: Policy;
  /** Refuse tools that write or spawn. */
  readOnly?: boolean;
  /** Where tool-process log lines go. */
  onToolLog?: (callId: string | undefined, stream: 'stdout' | 'stderr', line: string) => void;
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
  readonly backend: ConsoleBackend;
  readonly workspace: string;
  readonly approvalTimeoutMs: number;
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
  const registry = new ToolRegistry({ readOnly: options.readOnly });
  for (const tool of BUILTIN_TOOLS) {
    // A read-only gate simply goes without the built-ins that write.
    if (!options.readOnly || mutatingEffects(tool.manifest.sideEffects).length === 0) registry.register(tool);
  }
  for (const module of options.toolModules ?? []) {
    for (const tool of await loadToolModule(module)) registry.register(tool, module);
  }
  const events = new GateEvents();
  const audit = new AuditStore({ path: paths.audit, headPath: paths.auditHead });
  audit.onAppend((record) => events.emit('auditAppended', record));
  const approvalTimeoutMs = options.approvalTimeoutMs ?? 5 * 60_000;
  const approvals = new ApprovalQueue({
    timeoutMs: approvalTimeoutMs,
    onRequested: (request) => events.emit('approvalRequested', request),
    onResolved: (outcome) => events.emit('approvalResolved', outcome),
  });
  const calls = new CallTracker((snapshot) => events.emit('callUpdated', snapshot));
  const pool = new ToolProcessPool({
    factory: options.hostFactory ?? createChildProcessHost,
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    size: options.poolSize ?? 2,
    maxQueue: 256,
    onLog: options.onToolLog,
  });
  const executor = new Executor({
    registry,
    pool,
    audit,
    approvals,
    policy: options.policy ?? tierPolicy,
    calls,
    workspace,
    grants: options.grants ?? DEFAULT_GRANTS,
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
    workspace,
    approvalTimeoutMs,
    backend: createConsoleBackend({
      registry,
      approvals,
      audit,
      calls,
      events,
      info: () => ({ workspace, approvalTimeoutMs, ...(mcpUrl ? { mcpUrl } : {}) }),
    }),
    setMcpUrl: (url) => {
      mcpUrl = url;
    },
    close: () => {
      closing ??= (async () => {
        approvals.close();
        await pool.close();
        events.clear();
        audit.close();
      })();
      return closing;
    },
  };
  return gate;
}
