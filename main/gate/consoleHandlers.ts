import type { GateInfo } from '../../shared/contract';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import type { AuditStore } from '../audit/auditStore';
import type { ConsoleBackend } from '../bridge/consoleBackend';
import type { CallTracker } from '../executor/callTracker';
import type { ToolRegistry } from '../registry/registry';
import { toolgateVersion } from '../state/paths';
import type { GateEvents } from './gateEvents';

/** The gate pieces the console reads and answers. */
export interface ConsoleSources {
  registry: ToolRegistry;
  approvals: ApprovalQueue;
  audit: AuditStore;
  calls: CallTracker;
  events: GateEvents;
  info: () => Omit<GateInfo, 'version'>;
}

/** The console's view of the gate: one handler per bridge method, and its events. */
export function createConsoleBackend(sources: ConsoleSources): ConsoleBackend {
  const version = toolgateVersion();
  return {
    handlers: {
      getInfo: async () => ({ version, ...sources.info() }),
      listTools: async () => sources.registry.list().map((manifest) => ({ manifest, available: true })),
      listCalls: async () => sources.calls.list(),
      listApprovals: async () => sources.approvals.list(),
      decideApproval: async ({ approvalId, decision, reason }) => sources.approvals.decide(approvalId, decision, reason),
      listAudit: async ({ limit, beforeSeq }) => sources.audit.list({ limit, beforeSeq }),
      verifyAudit: async () => sources.audit.verify(),
    },
    subscribe: (event, listener) => sources.events.subscribe(event, listener),
  };
}
