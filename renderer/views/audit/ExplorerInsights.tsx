import { useEffect, useState } from 'react';
import { CallOutcomeSchema, type CallOutcome, type CallRow, type ExplorerFilter, type ExplorerStats } from '../../../shared/explorer';
import { SESSION_STRIP_CALLS } from '../../store/explorerFeed';
import { formatDuration } from '../../format/time';
import { VisibleText } from '../common/VisibleText';
import { shortId } from './FacetPanel';
import { countOf } from '../../../shared/plural';

/** Outcomes in the order the charts stack them. */
const OUTCOMES: readonly CallOutcome[] = CallOutcomeSchema.options;
const CHART_WIDTH = 320;
const CHART_HEIGHT = 90;
/** Sessions listed with their timeline. */
const SESSIONS_SHOWN = 12;

/**
 * Sessions and the shape of the day over the filtered calls: each agent session's calls as a strip in
 * time, calls over time by outcome, approval wait times, top tools and denials by rule. A click on a
 * session, a tool or a time bucket narrows the filter to it.
 */
export function ExplorerInsights({
  stats,
  error,
  filter,
  onFilter,
  sessionCalls,
  onOpenCall,
}: {
  stats: ExplorerStats | undefined;
  error: string | undefined;
  filter: ExplorerFilter;
  onFilter: (filter: ExplorerFilter) => void;
  /** A session's calls (newest first, up to a few hundred), for its strip of marks. */
  sessionCalls: (session: string) => Promise<readonly CallRow[]>;
  onOpenCall: (callId: string) => void;
}) {
  // Drawn only while open: the strips ask the gate for each session's calls.
  const [open, setOpen] = useState(false);
  return (
    <details className="explorer-insights" data-testid="explorer-insights" onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>Sessions and the shape of the day</summary>
      {!open ? null : error ? (
        <p className="decision-problem" role="alert">
          {error}
        </p>
      ) : !stats ? (
        <p className="note">Counting…</p>
      ) : (
        <>
          <div className="insight-charts">
            <OverTimeChart stats={stats} onRange={(from, to) => onFilter({ ...filter, from, to })} />
            <BarList
              title="Approval wait times"
              bars={stats.waits.map((w) => ({ label: `≤ ${formatDuration(w.upToMs)}`, count: w.count }))}
            />
            <BarList
              title="Top tools"
              bars={stats.topTools.map((t) => ({ label: t.tool, count: t.count, onClick: () => onFilter({ ...filter, tool: [t.tool] }) }))}
            />
            <BarList title="Denials by rule" bars={stats.denialsByRule.map((d) => ({ label: d.rule, count: d.count }))} />
          </div>
          <SessionList
            stats={stats}
            filter={filter}
            sessionCalls={sessionCalls}
            onOpenCall={onOpenCall}
            onSession={(session) => onFilter({ ...filter, session: [session] })}
          />
        </>
      )}
    </details>
  );
}

function OverTimeChart({ stats, onRange }: { stats: ExplorerStats; onRange: (from: string, to: string) => void }) {
  const buckets = stats.overTime.buckets;
  const max = Math.max(1, ...buckets.map((b) => Object.values(b.counts).reduce((sum, n) => sum + n, 0)));
  const width = buckets.length > 0 ? CHART_WIDTH / buckets.length : CHART_WIDTH;
  return (
    <figure className="insight-chart">
      <figcaption>Calls over time by outcome</figcaption>
      <svg viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`} width={CHART_WIDTH} height={CHART_HEIGHT} role="img" aria-label="Calls over time by outcome">
        {buckets.map((bucket, index) => {
          let y = CHART_HEIGHT;
          const start = Date.parse(bucket.start);
          const to = new Date(start + stats.overTime.bucketMs).toISOString();
          const total = Object.values(bucket.counts).reduce((sum, n) => sum + n, 0);
          return (
            <g key={bucket.start} className="chart-bucket" onClick={() => onRange(bucket.start, to)}>
              <title>{`${new Date(start).toLocaleString()}: ${countOf(total, 'call')} — click to show only these`}</title>
              <rect x={index * width} y={0} width={width} height={CHART_HEIGHT} className="chart-hit" />
              {OUTCOMES.map((outcome) => {
                const count = bucket.counts[outcome] ?? 0;
                if (count === 0) return null;
                const height = (count / max) * CHART_HEIGHT;
                y -= height;
                return <rect key={outcome} x={index * width + 0.5} y={y} width={Math.max(1, width - 1)} height={height} className={`chart-${outcome}`} />;
              })}
            </g>
          );
        })}
      </svg>
      <p className="chart-legend">
        {OUTCOMES.slice(0, 3).map((outcome) => (
          <span key={outcome} className={`legend-${outcome}`}>
            {outcome}
          </span>
        ))}
      </p>
    </figure>
  );
}

function BarList({ title, bars }: { title: string; bars: ReadonlyArray<{ label: string; count: number; onClick?: () => void }> }) {
  const max = Math.max(1, ...bars.map((b) => b.count));
  return (
    <figure className="insight-chart">
      <figcaption>{title}</figcaption>
      {bars.length === 0 ? <p className="note">none</p> : null}
      <ul className="bar-list">
        {bars.slice(0, 8).map((bar) => {
          const body = (
            <>
              <span className="bar-label" title={bar.label}>
                <VisibleText text={bar.label} />
              </span>
              <svg width="100" height="10" aria-hidden="true">
                <rect x="0" y="1" width={Math.max(1, (bar.count / max) * 100)} height="8" className="bar" />
              </svg>
              <span className="numeric">{bar.count.toLocaleString('en-US')}</span>
            </>
          );
          return (
            <li key={bar.label}>
              {bar.onClick ? (
                <button type="button" className="bar-button" onClick={bar.onClick} title={`Show only ${bar.label}`}>
                  {body}
                </button>
              ) : (
                <span className="bar-button">{body}</span>
              )}
            </li>
          );
        })}
      </ul>
    </figure>
  );
}

function SessionList({
  stats,
  filter,
  sessionCalls,
  onSession,
  onOpenCall,
}: {
  stats: ExplorerStats;
  filter: ExplorerFilter;
  sessionCalls: (session: string) => Promise<readonly CallRow[]>;
  onSession: (session: string) => void;
  onOpenCall: (callId: string) => void;
}) {
  const sessions = stats.sessions.slice(0, SESSIONS_SHOWN);
  if (sessions.length === 0) return <p className="note">No agent session among these calls.</p>;
  return (
    <table className="data-table session-table" aria-label="Agent sessions">
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Agent</th>
          <th scope="col" className="numeric">Calls</th>
          <th scope="col" className="numeric">Failed</th>
          <th scope="col" className="numeric">Denied</th>
          <th scope="col">Its calls in time (newest {SESSION_STRIP_CALLS})</th>
        </tr>
      </thead>
      <tbody>
        {sessions.map((s) => (
          <tr key={s.session} data-testid="session-row">
            <td>
              <button type="button" className="link-button" onClick={() => onSession(s.session)} title={`Show only session ${s.session}`}>
                <code>{shortId(s.session)}</code>
              </button>
            </td>
            <td>
              <VisibleText text={s.agent ?? ''} />
            </td>
            <td className="numeric">{s.calls.toLocaleString('en-US')}</td>
            <td className="numeric">{s.failed.toLocaleString('en-US')}</td>
            <td className="numeric">{s.denied.toLocaleString('en-US')}</td>
            <td>
              <SessionStrip session={s.session} filter={filter} sessionCalls={sessionCalls} onOpenCall={onOpenCall} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Calls drawn per session strip. */
const STRIP_WIDTH = 260;

/** A session's calls as marks along its time, coloured by outcome; a click opens that call. */
function SessionStrip({
  session,
  filter,
  sessionCalls,
  onOpenCall,
}: {
  session: string;
  filter: ExplorerFilter;
  sessionCalls: (session: string) => Promise<readonly CallRow[]>;
  onOpenCall: (callId: string) => void;
}) {
  const [calls, setCalls] = useState<readonly CallRow[] | 'failed'>();
  const filterKey = JSON.stringify(filter);
  useEffect(() => {
    let current = true;
    sessionCalls(session).then(
      (rows) => current && setCalls(rows),
      () => current && setCalls('failed'),
    );
    return () => {
      current = false;
    };
  }, [session, filterKey, sessionCalls]);
  if (calls === undefined) return <span className="note">…</span>;
  if (calls === 'failed') return <span className="note">could not load its calls</span>;
  const times = calls.map((call) => Date.parse(call.time));
  const first = Math.min(...times);
  const span = Math.max(1, Math.max(...times) - first);
  return (
    <svg width={STRIP_WIDTH} height="14" role="img" aria-label={`${countOf(calls.length, 'call')} of session ${session} in time`}>
      <rect x="0" y="6" width={STRIP_WIDTH} height="2" className="session-axis" />
      {calls.map((call, index) => (
        <rect
          key={call.callId}
          x={((times[index]! - first) / span) * (STRIP_WIDTH - 3)}
          y="1"
          width="3"
          height="12"
          className={`session-mark chart-${call.outcome}`}
          onClick={() => onOpenCall(call.callId)}
        >
          <title>{`${call.tool} ${call.outcome} at ${call.time}`}</title>
        </rect>
      ))}
    </svg>
  );
}
