import type { CallSnapshot } from '../../../shared/call';
import { formatDuration } from '../../format/time';
import { useNow } from '../common/useNow';

/** How long a prompt has been waiting so far, counted up each second. */
function WaitingSoFar({ askedAt }: { askedAt: string }) {
  const now = useNow();
  return <span className="waiting-now">{formatDuration(Math.max(0, now - Date.parse(askedAt)))} so far</span>;
}

/** The time a call waited for a person: counting while it waits, "—" when nobody was asked. */
export function WaitedCell({ call }: { call: CallSnapshot }) {
  const waiting = call.status === 'awaiting-approval' && call.askedAt !== undefined;
  return (
    <td className="numeric call-waited" data-testid="call-waited" data-ms={call.waitedMs}>
      {waiting ? <WaitingSoFar askedAt={call.askedAt!} /> : call.waitedMs !== undefined ? formatDuration(call.waitedMs) : '—'}
    </td>
  );
}

/** The time a call's tool ran, apart from any wait; the whole time from receipt to end in its tooltip. */
export function RanCell({ call }: { call: CallSnapshot }) {
  const total = call.durationMs !== undefined ? `${formatDuration(call.durationMs)} in all, from receipt to result` : undefined;
  return (
    <td className="numeric call-ran" data-testid="call-ran" data-ms={call.ranMs} title={total}>
      {call.ranMs !== undefined ? formatDuration(call.ranMs) : call.status === 'running' ? 'running' : '—'}
    </td>
  );
}
