import { useEffect, useState } from 'react';
import type { CallDetail } from '../../../shared/explorer';
import { describe } from '../../store/consoleSync';
import { CallDetailView } from './CallDetailView';
import { ProblemNote } from '../common/ProblemNote';

type Loaded = { callId: string; detail?: CallDetail; error?: string };

/**
 * The detail pane of one call: loads it from the gate, then draws it; says why when it cannot. A new
 * `version` (a record of the call arrived) loads it again, keeping the old one drawn meanwhile.
 */
export function CallDetailPane({
  callId,
  version = 0,
  load,
  onClose,
}: {
  callId: string;
  version?: number;
  load: (callId: string) => Promise<CallDetail>;
  onClose: () => void;
}) {
  const [loaded, setLoaded] = useState<Loaded>({ callId });
  useEffect(() => {
    let current = true;
    setLoaded((previous) => (previous.callId === callId ? previous : { callId }));
    load(callId).then(
      (detail) => current && setLoaded({ callId, detail }),
      (failure: unknown) => current && setLoaded({ callId, error: `Could not load call ${callId}: ${describe(failure)}` }),
    );
    return () => {
      current = false;
    };
  }, [callId, version, load]);

  return (
    <aside className="call-detail-pane" aria-label="Call detail">
      {loaded.error ? (
        <>
          <ProblemNote problem={loaded.error} testId="detail-problem" />
          <button type="button" onClick={onClose}>
            Close
          </button>
        </>
      ) : loaded.detail && loaded.callId === callId ? (
        <CallDetailView detail={loaded.detail} onClose={onClose} />
      ) : (
        <p className="empty">Loading call {callId}…</p>
      )}
    </aside>
  );
}
