import { GateError } from '../../shared/errors';
import type { Executor } from '../executor/executor';
import type { ToolRegistry } from '../registry/registry';
import type { AuditStore } from './auditStore';
import { checkpointStatus } from './checkpointStatus';
import type { CheckpointWriter } from './checkpointWriter';
import { noAuditViews, type AuditViews } from './auditViews';
import { callReplayability, replayCall } from './replay';
import { callDetail } from './callDetail';
import { explorePage, iterateCalls } from './explorerQuery';
import { explorerStats } from './explorerStats';
import { exportView } from './exportView';

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
  const none = noAuditViews();
  // The detail pane's Replay button and the replay itself judge a call the same way.
  const judgeReplay = (records: Parameters<typeof callReplayability>[1]) => callReplayability(deps.registry, records);
  // Each answer waits for the index without blocking the gate's thread (a large log's index is
  // rebuilt after the gate starts), then reads it at once.
  const indexed = async <T>(read: () => T | Promise<T>): Promise<T> => {
    await deps.audit.callIndexReady();
    return read();
  };
  return {
    explore: (request) => indexed(() => explorePage(deps.audit, request)),
    detail: ({ callId }) => indexed(() => {
      const detail = callDetail(deps.audit, callId, judgeReplay);
      if (!detail) throw new GateError('ENOTFOUND', `the audit log has no call ${JSON.stringify(callId)}: it may be from another log, or the id was mistyped`);
      return detail;
    }),
    stats: ({ filter }) => indexed(() => explorerStats(deps.audit, filter)),
    exportView: (request) => indexed(() => exportView(deps.audit, request, iterateCalls)),
    replay: (request) => indexed(() => replayCall(deps, request.callId)),
    checkpoint: deps.home === undefined ? none.checkpoint : async () => checkpointStatus({ home: deps.home!, writer: deps.checkpoints }),
  };
}
