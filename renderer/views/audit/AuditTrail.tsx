import { useEffect, useId, useState, type FormEvent } from 'react';
import type { AuditRecord } from '../../../shared/audit';
import { stepsOf } from '../../../shared/auditSteps';
import type { AuditTrail } from '../../store/consoleState';
import { revealInvisibles } from '../../format/invisibles';
import { compactJson, truncate } from '../../format/json';
import { formatClock } from '../../format/time';
import { ProblemNote } from '../common/ProblemNote';
import { VisibleText } from '../common/VisibleText';
import { useConsoleSync } from '../consoleContext';
import { countOf } from '../../../shared/plural';

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

/** One call's steps one by one, newest first: a record holding several shows each (they share its seq and hash). */
function AuditTable({ records }: { records: readonly AuditRecord[] }) {
  const steps = records.flatMap((record) => stepsOf(record).reverse());
  return (
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
        {steps.map((step, index) => (
          <AuditRow key={`${step.seq}-${index}`} record={step} />
        ))}
      </tbody>
    </table>
  );
}

/** The filter by call: a call id typed in, or filled in by a Live row's "Audit trail" link. */
export function CallFilter({ callId }: { callId: string | undefined }) {
  const sync = useConsoleSync();
  const inputId = useId();
  const [typed, setTyped] = useState(callId ?? '');
  const [problem, setProblem] = useState<string>();
  useEffect(() => setTyped(callId ?? ''), [callId]);

  function submit(event: FormEvent): void {
    event.preventDefault();
    const wanted = typed.trim();
    if (!wanted) {
      setProblem('Type a call id (Live shows each call\'s "Audit trail" link), or press "Every call"');
      return;
    }
    setProblem(undefined);
    void sync.showAuditTrail(wanted);
  }

  return (
    <form className="audit-filter" onSubmit={submit} aria-label="Filter by call">
      <label htmlFor={inputId}>Call id</label>
      <input id={inputId} type="search" value={typed} maxLength={100} spellCheck={false} onChange={(event) => setTyped(event.target.value)} />
      <button type="submit">Show its records</button>
      {callId ? (
        <button type="button" onClick={() => sync.clearAuditTrail()}>
          Every call
        </button>
      ) : null}
      <ProblemNote problem={problem} testId="audit-filter-problem" inline />
    </form>
  );
}

/** One call's records, or why there are none; `onOpenCall` shows the call in the explorer's detail pane instead. */
export function TrailRecords({ trail, onOpenCall }: { trail: AuditTrail; onOpenCall?: (callId: string) => void }) {
  if (trail.error) {
    return (
      <p className="decision-problem" role="alert" data-testid="audit-trail-problem">
        {trail.error}
      </p>
    );
  }
  if (trail.records === undefined) return <p className="empty">Loading the records of call {trail.callId}…</p>;
  if (trail.records.length === 0) {
    return (
      <p className="empty" data-testid="audit-trail-empty">
        No audit record names call <code>{trail.callId}</code>. Check the id: Live&apos;s &quot;Audit trail&quot; link fills it in.
      </p>
    );
  }
  return (
    <>
      <p className="list-count" data-testid="audit-trail-heading">
        {countOf(trail.records.length, 'record')} of call <code>{trail.callId}</code>, newest first
        {onOpenCall ? (
          <>
            {' '}
            <button type="button" className="link-button" data-testid="trail-open-detail" onClick={() => onOpenCall(trail.callId)}>
              Open its timeline and detail
            </button>
          </>
        ) : null}
      </p>
      <AuditTable records={trail.records} />
    </>
  );
}
