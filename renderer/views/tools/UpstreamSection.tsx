import { useEffect, useMemo } from 'react';
import { useStore } from 'zustand';
import { UpstreamReview, type UpstreamReviewState } from '../../store/upstreamReview';
import { ProblemNote } from '../common/ProblemNote';
import { VisibleText } from '../common/VisibleText';
import { useConsoleState, useConsoleSync } from '../consoleContext';
import { UpstreamServerCard, type UpstreamServerActions } from './UpstreamServerCard';
import { countOf, nounFor } from '../../../shared/plural';

/** The servers file's entries refused whole: the others run; these wait for the file to be fixed. */
function RefusedEntries({ refused }: { refused: NonNullable<UpstreamReviewState['overview']>['refused'] }) {
  if (refused.length === 0) return null;
  return (
    <div className="banner banner-warning" role="group" aria-label="Refused servers.json entries" data-testid="refused-servers">
      <p>
        {refused.length === 1 ? 'One entry' : countOf(refused.length, 'entry', { plural: 'entries' })} of the servers file {nounFor(refused.length, 'was', 'were')} refused and will not
        start until fixed:
      </p>
      <ul>
        {refused.map((entry, index) => (
          <li key={index} data-testid="refused-server">
            <code>
              <VisibleText text={entry.name} />
            </code>{' '}
            (<code>
              <VisibleText text={entry.field} />
            </code>
            ): <VisibleText text={entry.message} />
          </li>
        ))}
      </ul>
    </div>
  );
}

/** The "MCP servers" section drawn from a state: what the tests render, and what UpstreamSection fills. */
export function UpstreamServers({ state, actions }: { state: UpstreamReviewState; actions: UpstreamServerActions }) {
  const { overview } = state;
  return (
    <section className="upstream-section" aria-labelledby="upstream-heading" data-testid="upstream-section">
      <h2 id="upstream-heading">MCP servers</h2>
      <p className="note">
        Your own MCP servers, behind the gate: agents call each tool as <code>server__tool</code>. A tool is offered to agents only once you trust it:
        one you have not reviewed, or whose definition changed since, waits here with its findings.
      </p>
      <ProblemNote problem={state.loadProblem} testId="upstream-load-problem" />
      {overview === undefined && !state.loadProblem ? <p className="empty">Loading the MCP servers…</p> : null}
      {overview ? (
        <>
          {overview.file ? (
            <p className="note" data-testid="servers-file">
              Servers file: <code>{overview.file}</code>
            </p>
          ) : null}
          {overview.fileProblem ? (
            <div className="banner banner-warning" role="alert" data-testid="servers-file-problem">
              The servers file changed but cannot be read: <VisibleText text={overview.fileProblem} />
            </div>
          ) : null}
          <RefusedEntries refused={overview.refused} />
          {overview.servers.length === 0 ? (
            <p className="empty">No MCP server is set up. Add one to servers.json in the Toolgate home (or run toolgate servers import): it shows here within a second.</p>
          ) : null}
          {overview.servers.map((server) => (
            <UpstreamServerCard key={server.name} server={server} state={state} actions={actions} />
          ))}
        </>
      ) : null}
    </section>
  );
}

/**
 * The person's MCP servers in the Tools view: loaded when the console connects (again), replaced
 * whenever the gate sends upstreamChanged or answers a review, with the person's review choices kept.
 */
export function UpstreamSection() {
  const sync = useConsoleSync();
  const connection = useConsoleState((s) => s.connection);
  const review = useMemo(() => new UpstreamReview(sync.bridge), [sync]);
  useEffect(() => {
    review.start();
    return () => review.stop();
  }, [review]);
  useEffect(() => {
    if (connection === 'open') void review.load();
  }, [review, connection]);
  const state = useStore(review.store);
  return <UpstreamServers state={state} actions={review} />;
}
