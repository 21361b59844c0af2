import { Fragment, useMemo } from 'react';
import { callsInOrder } from '../../store/reducers';
import { useConsoleState } from '../consoleContext';
import { CallRow } from './CallRow';
import { CallOutputRow } from './CallTerminal';

/** Every call through the gate, newest first, updated as each moves through the pipeline. */
export function LiveView() {
  const callsState = useConsoleState((s) => s.calls);
  const calls = useMemo(() => callsInOrder(callsState), [callsState]);
  if (calls.length === 0) {
    return <p className="empty">No calls yet. Calls appear here as agents make them.</p>;
  }
  return (
    <table className="data-table live-table" aria-label="Calls">
      <thead>
        <tr>
          <th scope="col">Tool</th>
          <th scope="col">Arguments</th>
          <th scope="col">Status</th>
          <th scope="col">Step</th>
          <th scope="col" className="numeric">Duration</th>
          <th scope="col">Result or error</th>
        </tr>
      </thead>
      <tbody>
        {calls.map((call) => (
          <Fragment key={call.callId}>
            <CallRow call={call} />
            <CallOutputRow call={call} />
          </Fragment>
        ))}
      </tbody>
    </table>
  );
}
