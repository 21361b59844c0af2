import type { AuditRecord } from '../../../shared/audit';
import { revealInvisibles } from '../../format/invisibles';
import { compactJson, truncate } from '../../format/json';
import { formatClock } from '../../format/time';
import { VisibleText } from '../common/VisibleText';
import { useConsoleState, useConsoleSync } from '../consoleContext';
import { ChainStatus } from './ChainStatus';

/** How many of the held records the table shows. */
const ROWS_SHOWN = 200;
const HASH_PREFIX_CHARS = 12;

/** One audit record; its payload is untrusted (tool names, arguments, errors). */
export function AuditRow({ record }: { record: AuditRecord }) {
  const payload = compactJson(record.payload);
  return (
    <tr data-testid="audit-row" data-seq={record.seq} data-kind={record.kind}>
      <td className="numeric">{record.seq}</td>
      <td title={record.time}>{formatClock(record.time)}</td>
      <td>
        <span className={`kind kind-${record.kind}`}>{record.kind}</span>
      </td>
      <td>
        <code>{record.callId}</code>
      </td>
      <td className="payload" title={revealInvisibles(truncate(payload, 2000).text)}>
        <code>
          <VisibleText text={truncate(payload, 100).text} />
        </code>
      </td>
      <td title={record.hash}>
        <code>{record.hash.slice(0, HASH_PREFIX_CHARS)}</code>
      </td>
    </tr>
  );
}

/** The tamper-evident log: the chain's verdict on top, the latest records below. */
export function AuditView() {
  const verify = useConsoleState((s) => s.verify);
  const records = useConsoleState((s) => s.audit);
  const sync = useConsoleSync();
  return (
    <div className="audit-view">
      <ChainStatus verify={verify} onVerify={() => void sync.verifyAudit()} />
      {records.length === 0 ? (
        <p className="empty">The audit log is empty.</p>
      ) : (
        <table className="data-table audit-table" aria-label="Audit records">
          <thead>
            <tr>
              <th scope="col" className="numeric">Seq</th>
              <th scope="col">Time</th>
              <th scope="col">Kind</th>
              <th scope="col">Call</th>
              <th scope="col">Payload</th>
              <th scope="col">Hash</th>
            </tr>
          </thead>
          <tbody>
            {records.slice(0, ROWS_SHOWN).map((record) => (
              <AuditRow key={record.seq} record={record} />
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}
