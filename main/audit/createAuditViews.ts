import { GateError } from '../../shared/errors';
import type { Executor } from '../executor/executor';
import type { ToolRegistry } from '../registry/registry';
import type { AuditStore } from './auditStore';
import { noAuditViews, type AuditViews } from './auditViews';
import { callDetail, registryReplayable } from './callDetail';
import { explorePage } from './explorerQuery';
import { explorerStats } from './explorerStats';

/** What the audit explorer's answers are made from. */
export interface AuditViewDeps {
  audit: AuditStore;
  registry: ToolRegistry;
  executor: Executor;
}

/** The gate's audit explorer: each member answered by its module. */
export function createAuditViews(deps: AuditViewDeps): AuditViews {
  const none = noAuditViews();
  const replayable = registryReplayable(deps.registry);
  return {
    explore: async (request) => explorePage(deps.audit, request),
    detail: async ({ callId }) => {
      const detail = callDetail(deps.audit, callId, replayable);
      if (!detail) throw new GateError('ENOTFOUND', `the audit log has no call ${JSON.stringify(callId)}: it may be from another log, or the id was mistyped`);
      return detail;
    },
    stats: async ({ filter }) => explorerStats(deps.audit, filter),
    exportView: none.exportView,
    replay: none.replay,
    checkpoint: none.checkpoint,
  };
}
