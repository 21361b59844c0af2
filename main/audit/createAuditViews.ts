import type { Executor } from '../executor/executor';
import type { ToolRegistry } from '../registry/registry';
import type { AuditStore } from './auditStore';
import { noAuditViews, type AuditViews } from './auditViews';
import { replayCall } from './replay';

/** What the audit explorer's answers are made from. */
export interface AuditViewDeps {
  audit: AuditStore;
  registry: ToolRegistry;
  executor: Executor;
}

/** The gate's audit explorer: each member answered by its module. */
export function createAuditViews(deps: AuditViewDeps): AuditViews {
  void deps;
  const none = noAuditViews();
  return {
    explore: none.explore,
    detail: none.detail,
    stats: none.stats,
    exportView: none.exportView,
    replay: (request) => replayCall(deps, request.callId),
    checkpoint: none.checkpoint,
  };
}
