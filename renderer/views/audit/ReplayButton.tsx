import type { CallDetail } from '../../../shared/explorer';

/** Re-runs a recorded call and compares its response hash (placeholder until replay lands). */
export function ReplayButton(_props: { callId: string; replay?: CallDetail['replay'] }) {
  return null;
}
