import type { CallOutcome, ExplorerFilter, ExplorerStats } from '../../../shared/explorer';
import { formatDuration } from '../../format/time';
import { VisibleText } from '../common/VisibleText';
import { shortId } from './FacetPanel';

/** Outcomes in the order the charts stack them. */
const OUTCOMES: readonly CallOutcome[] = ['completed', 'failed', 'rejected', 'interrupted', 'open'];
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
}: {
  stats: ExplorerStats | undefined;
  error: string | undefined;
  filter: ExplorerFilter;
  onFilter: (filter: ExplorerFilter) => void;
}) {
  return (
    <details className="explorer-insights" data-testid="explorer-insights">
      <summary>Sessions and the shape of the day</summary>
      {error ? (
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
          <SessionList stats={stats} onSession={(session) => onFilter({ ...filter, session: [session] })} />
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
              <title>{`${new Date(start).toLocaleString()}: ${total} calls — click to show only these`}</title>
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

function SessionList({ stats, onSession }: { stats: ExplorerStats; onSession: (session: string) => void }) {
  const sessions = stats.sessions.slice(0, SESSIONS_SHOWN);
  if (sessions.length === 0) return <p className="note">No agent session among these calls.</p>;
  const start = Math.min(...sessions.map((s) => Date.parse(s.first)));
  const end = Math.max(...sessions.map((s) => Date.parse(s.last)));
  const span = Math.max(1, end - start);
  return (
    <table className="data-table session-table" aria-label="Agent sessions">
      <thead>
        <tr>
          <th scope="col">Session</th>
          <th scope="col">Agent</th>
          <th scope="col" className="numeric">Calls</th>
          <th scope="col" className="numeric">Failed</th>
          <th scope="col" className="numeric">Denied</th>
          <th scope="col">When</th>
        </tr>
      </thead>
      <tbody>
        {sessions.map((s) => {
          const x = ((Date.parse(s.first) - start) / span) * 200;
          const width = Math.max(2, ((Date.parse(s.last) - Date.parse(s.first)) / span) * 200);
          const tone = s.denied > 0 ? 'rejected' : s.failed > 0 ? 'failed' : 'completed';
          return (
            <tr key={s.session}>
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
                <svg width="200" height="12" role="img" aria-label={`from ${s.first} to ${s.last}`}>
                  <rect x="0" y="5" width="200" height="2" className="session-axis" />
                  <rect x={x} y="1" width={width} height="10" rx="2" className={`chart-${tone}`} onClick={() => onSession(s.session)} />
                </svg>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
