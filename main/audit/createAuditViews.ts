import type { Executor } from '../executor/executor';
import type { ToolRegistry } from '../registry/registry';
import type { AuditStore } from './auditStore';
import { checkpointStatus } from './checkpointStatus';
import type { CheckpointWriter } from './checkpointWriter';
import { noAuditViews, type AuditViews } from './auditViews';
import { replayCall } from './replay';

/** What the audit explorer's answers are made from. */
export interface AuditViewDeps {
  audit: AuditStore;
  registry: ToolRegistry;
  executor: Executor;
  /** The state folder (the checkpoint key lives there). */
  home?: string;
  /** The gate's checkpoint writer, when it was started with a checkpoint folder. */
  checkpoints?: CheckpointWriter;
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
    checkpoint: deps.home === undefined ? none.checkpoint : async () => checkpointStatus({ home: deps.home!, writer: deps.checkpoints }),
  };
}
