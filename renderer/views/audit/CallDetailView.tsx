import { useState } from 'react';
import type { AuditRecord } from '../../../shared/audit';
import type { CallDetail } from '../../../shared/explorer';
import { TextFindingSchema, type TextFinding } from '../../../shared/upstream';
import { revealInvisibles } from '../../format/invisibles';
import { prettyJson } from '../../format/json';
import { formatClock } from '../../format/time';
import { describe } from '../../store/consoleSync';
import { FindingList } from '../common/FindingList';
import { UndoPanel } from '../common/UndoPanel';
import { VisibleText } from '../common/VisibleText';
import { decidedText, durationText } from './callRowText';
import { cutPayload, formatBytes, formatGap, payloadOf, recordTimeline } from './recordTimeline';
import { ReplayButton } from './ReplayButton';
import { ShownPreview } from './ShownPreview';

/** JSON shown in the pane before "Show all" (a record is at most 64 KiB; drawing that whole is slow). */
const JSON_CHARS_SHOWN = 8_000;

/** One call whole: its timeline, arguments, what the person was shown, the decision, the result, and every record's place in the log. */
export function CallDetailView({ detail, onClose }: { detail: CallDetail; onClose?: () => void }) {
  const { row, records, logSize } = detail;
  const invoked = payloadOf(records, 'invoked');
  const policy = payloadOf(records, 'policy');
  const asked = payloadOf(records, 'approval-requested');
  const answered = payloadOf(records, 'approval-decided');
  const ended = payloadOf(records, 'completed') ?? payloadOf(records, 'failed') ?? payloadOf(records, 'rejected') ?? payloadOf(records, 'interrupted');
  return (
    <article className="call-detail" aria-label={`Call ${row.callId}`} data-testid="call-detail">
      <header className="call-detail-head">
        <h3>
          <VisibleText text={row.tool} /> <span className={`outcome outcome-${row.outcome}`}>{row.outcome}</span>
        </h3>
        <div className="call-detail-actions">
          <CopyJsonButton detail={detail} />
          <ReplayButton callId={row.callId} replay={detail.replay} />
          {hasEffects(ended) ? <UndoPanel callId={row.callId} /> : null}
          {onClose ? (
            <button type="button" onClick={onClose} aria-label="Close the detail (Esc)">
              Close
            </button>
          ) : null}
        </div>
        <p className="note">
          call <code className="detail-id" title={row.callId}>{row.callId}</code>
          {row.agent ? (
            <>
              {' '}
              · agent{' '}
              <span className="detail-id" title={revealInvisibles(row.agent)}>
                <VisibleText text={row.agent} />
              </span>
            </>
          ) : null}
          {row.session ? (
            <>
              {' '}
              · session{' '}
              <code className="detail-id" title={row.session}>
                {row.session}
              </code>
            </>
          ) : null}
          {row.tier ? <> · tier {row.tier}</> : null} · waited {durationText(row.waitedMs)} · ran {durationText(row.ranMs)}
        </p>
      </header>

      <section aria-label="Timeline">
        <h4>Timeline</h4>
        <Timeline records={records} logSize={logSize} />
      </section>

      <section aria-label="Arguments">
        <h4>Arguments</h4>
        <JsonBlock value={invoked?.arguments} empty="The call was recorded without arguments." testId="detail-arguments" />
      </section>

      {asked ? (
        <section aria-label="What the person was shown" data-testid="detail-shown">
          <h4>What the person was shown</h4>
          <ShownPreview preview={asked.preview} />
        </section>
      ) : null}

      <section aria-label="Decision" data-testid="detail-decision">
        <h4>Decision</h4>
        <dl className="detail-facts">
          <dt>Policy</dt>
          <dd>
            {policy ? (
              <>
                {String(policy.decision ?? '')} by rule <code><VisibleText text={String(policy.rule ?? '')} /></code>
                {policy.reason ? <> — <VisibleText text={String(policy.reason)} /></> : null}
                {policy.tierRaised ? <> (tier raised: <VisibleText text={String(policy.tierRaised)} />)</> : null}
              </>
            ) : (
              'no policy record (the call was refused before the policy was asked)'
            )}
          </dd>
          <dt>Decided by</dt>
          <dd>
            <VisibleText text={decidedText(row) || '—'} />
          </dd>
          {answered ? (
            <>
              <dt>Answer</dt>
              <dd>
                {String(answered.outcome ?? '')}
                {answered.reason ? <> — <VisibleText text={String(answered.reason)} /></> : null}
              </dd>
            </>
          ) : null}
        </dl>
      </section>

      <section aria-label="Result" data-testid="detail-result">
        <h4>Result</h4>
        {ended?.error !== undefined ? (
          <JsonBlock value={ended.error} empty="" testId="detail-error" />
        ) : ended && 'output' in ended ? (
          <JsonBlock value={ended.output} empty="The tool returned nothing." testId="detail-output" />
        ) : (
          <p className="note">{row.outcome === 'open' ? 'The call has not ended.' : 'The closing record holds no output.'}</p>
        )}
        <FindingList findings={recordedFindings(ended?.findings)} where="in the result (passed to the agent unchanged)" testId="detail-findings" />
        {typeof ended?.responseHash === 'string' ? (
          <p className="note">
            response hash <code className="hash">{ended.responseHash}</code>
          </p>
        ) : null}
      </section>
    </article>
  );
}

const RecordedFindingsSchema = TextFindingSchema.array();

/** The findings a completed record holds about an upstream result; none when it holds none (or none the console can read). */
function recordedFindings(value: unknown): TextFinding[] {
  const parsed = RecordedFindingsSchema.safeParse(value);
  return parsed.success ? parsed.data : [];
}

/** The records oldest first: each step's kind, time, gap from the step before, and place and hashes in the log. */
function Timeline({ records, logSize }: { records: readonly AuditRecord[]; logSize: number }) {
  return (
    <ol className="record-timeline" data-testid="detail-timeline">
      {recordTimeline(records).map(({ record, gapMs }, index) => (
        // Several steps may share one record (and its seq).
        <li key={`${record.seq}-${index}`} data-kind={record.kind} data-testid="timeline-step">
          <div className="timeline-line">
            <span className={`kind kind-${record.kind}`}>{record.kind}</span>
            <time dateTime={record.time} title={record.time}>
              {clockWithMs(record.time)}
            </time>
            <span className="timeline-gap">{formatGap(gapMs)}</span>
            <span className="timeline-seq numeric">
              seq {record.seq.toLocaleString('en-US')} of {logSize.toLocaleString('en-US')}
            </span>
          </div>
          <div className="timeline-hashes">
            <span>
              hash <code className="hash">{record.hash}</code>
            </span>
            <span>
              prevHash <code className="hash">{record.prevHash}</code>
            </span>
          </div>
        </li>
      ))}
    </ol>
  );
}

function clockWithMs(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return `${formatClock(iso)}.${String(date.getMilliseconds()).padStart(3, '0')}`;
}

/** A value as indented JSON (text only: it is untrusted), cut with its size when large or when the gate cut it. */
function JsonBlock({ value, empty, testId }: { value: unknown; empty: string; testId: string }) {
  const [all, setAll] = useState(false);
  if (value === undefined) return <p className="note">{empty}</p>;
  const cut = cutPayload(value);
  if (cut) {
    return (
      <div data-testid={testId}>
        <p className="note" data-testid="detail-cut">
          Too large to keep whole: {formatBytes(cut.bytes)}
          {cut.hash ? (
            <>
              , hash <code className="hash">{cut.hash}</code>
            </>
          ) : null}
          . Its first part:
        </p>
        {cut.head ? (
          <pre className="detail-json">
            <VisibleText text={cut.head.slice(0, JSON_CHARS_SHOWN)} />
          </pre>
        ) : null}
      </div>
    );
  }
  const text = prettyJson(value);
  const long = text.length > JSON_CHARS_SHOWN;
  return (
    <div data-testid={testId}>
      <pre className="detail-json">
        <VisibleText text={long && !all ? `${text.slice(0, JSON_CHARS_SHOWN)}…` : text} />
      </pre>
      {long ? (
        <button type="button" className="link-button" onClick={() => setAll(!all)}>
          {all ? 'Show less' : `Show all (${formatBytes(text.length)})`}
        </button>
      ) : null}
    </div>
  );
}

/** Copies the call (row and records) as JSON, and says whether it worked. */
function CopyJsonButton({ detail }: { detail: CallDetail }) {
  const [said, setSaid] = useState<string>();
  async function copy(): Promise<void> {
    try {
      await navigator.clipboard.writeText(JSON.stringify({ ...detail.row, records: detail.records, logSize: detail.logSize }, null, 2));
      setSaid('Copied');
    } catch (error) {
      setSaid(`Could not copy: ${describe(error)} (the browser may refuse the clipboard outside a click or over plain http)`);
    }
  }
  return (
    <>
      <button type="button" onClick={() => void copy()} data-testid="copy-json">
        Copy as JSON
      </button>
      {said ? (
        <span className="note" role="status">
          {said}
        </span>
      ) : null}
    </>
  );
}

/**
 * Whether a call's end record says it changed something in the workspace (what Undo offers to take
 * back). A record too large to show whole (cut to its head) may hold effects: the undo's plan says.
 */
function hasEffects(ended: Record<string, unknown> | undefined): boolean {
  if (ended?.cut === true) return true;
  const effects = (ended?.effects as { effects?: unknown } | undefined)?.effects;
  return Array.isArray(effects) && effects.length > 0;
}
