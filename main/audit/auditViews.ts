import { GateError } from '../../shared/errors';
import type { BridgeParsedRequest, BridgeResponse } from '../../shared/contract';

/**
 * What the console's audit explorer asks of the gate: pages, one call's detail, the charts, an
 * export of the view, a replay and the newest checkpoint. Each is answered by its own module.
 */
export interface AuditViews {
  explore(request: BridgeParsedRequest<'exploreCalls'>): Promise<BridgeResponse<'exploreCalls'>>;
  detail(request: BridgeParsedRequest<'callDetail'>): Promise<BridgeResponse<'callDetail'>>;
  stats(request: BridgeParsedRequest<'explorerStats'>): Promise<BridgeResponse<'explorerStats'>>;
  exportView(request: BridgeParsedRequest<'exportCalls'>): Promise<BridgeResponse<'exportCalls'>>;
  replay(request: BridgeParsedRequest<'replayCall'>): Promise<BridgeResponse<'replayCall'>>;
  checkpoint(): Promise<BridgeResponse<'checkpointStatus'>>;
}

/** The answer of a gate built without the explorer (tests of other views): each method says so. */
export function noAuditViews(): AuditViews {
  const missing = async (): Promise<never> => {
    throw new GateError('EUNAVAILABLE', 'this gate was started without the audit explorer');
  };
  return { explore: missing, detail: missing, stats: missing, exportView: missing, replay: missing, checkpoint: missing };
}
