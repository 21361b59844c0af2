import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { useStore } from 'zustand';
import type { Facet } from '../../../shared/explorer';
import { ExplorerFeed, filtersToLoosen, toggleFacet } from '../../store/explorerFeed';
import { useConsoleState, useConsoleSync } from '../consoleContext';
import { CallDetailPane } from './CallDetailPane';
import { CallList } from './CallList';
import { ChainStatus } from './ChainStatus';
import { CheckpointPanel } from './CheckpointPanel';
import { ExplorerInsights } from './ExplorerInsights';
import { ExplorerToolbar } from './ExplorerToolbar';
import { FacetPanel } from './FacetPanel';
import { CallFilter, TrailRecords } from './AuditTrail';
import { useExplorerLocation } from './useExplorerLocation';
import { countOf, nounFor } from '../../../shared/plural';

export { AuditRow } from './AuditTrail';

/** New calls show at once while the list is at its top, at most this often. */
const TOP_REFRESH_MS = 1_500;

/**
 * The Audit tab: the chain's verdict and the latest checkpoint on top, then the explorer (one row per
 * call, facets, search, charts, a detail pane), or one call's records when a trail is asked for.
 */
export function AuditView() {
  const verify = useConsoleState((s) => s.verify);
  const trail = useConsoleState((s) => s.auditTrail);
  const active = useConsoleState((s) => s.view.tab === 'Audit');
  const sync = useConsoleSync();
  const feed = useMemo(() => new ExplorerFeed(sync.bridge), [sync]);
  const location = useExplorerLocation(feed, sync, active, trail?.callId);
  return (
    <div className="audit-view">
      <ChainStatus verify={verify} onVerify={() => void sync.verifyAudit()} />
      <CheckpointPanel />
      <CallFilter callId={trail?.callId} />
      {trail ? (
        <TrailRecords
          trail={trail}
          onOpenCall={(callId) => {
            sync.clearAuditTrail();
            location.navigate({ filter: location.view.filter, open: callId });
          }}
        />
      ) : (
        <Explorer feed={feed} location={location} />
      )}
    </div>
  );
}

function Explorer({ feed, location }: { feed: ExplorerFeed; location: ReturnType<typeof useExplorerLocation> }) {
  const sync = useConsoleSync();
  const state = useStore(feed.store);
  const { view, setFilter, open } = location;
  const [selected, setSelected] = useState<string | undefined>(view.open);
  const [atTop, setAtTop] = useState(true);
  const refreshTimer = useRef<ReturnType<typeof setTimeout>>(undefined);

  // The open call's detail is drawn again when one of its records arrives (a prompt answered, the tool done).
  const [detailVersion, setDetailVersion] = useState(0);
  const openRef = useRef(view.open);
  openRef.current = view.open;
  useEffect(
    () =>
      sync.bridge.onAuditAppended((record) => {
        feed.noteAppended(record);
        if (record.callId === openRef.current) setDetailVersion((version) => version + 1);
      }),
    [sync, feed],
  );

  // At the top of the list new calls simply appear; scrolled down, a pill counts them instead.
  useEffect(() => {
    if (!atTop || state.newCalls === 0 || state.loading || refreshTimer.current) return;
    refreshTimer.current = setTimeout(() => {
      refreshTimer.current = undefined;
      void feed.refresh();
    }, TOP_REFRESH_MS);
  }, [atTop, state.newCalls, state.loading, feed]);
  useEffect(() => () => clearTimeout(refreshTimer.current), []);

  // Back in touch with the gate after a page failed: ask again.
  const connection = useConsoleState((s) => s.connection);
  useEffect(() => {
    if (connection === 'open' && feed.store.getState().error) void feed.retry();
  }, [connection, feed]);

  const onToggle = useCallback((facet: Facet, value: string) => setFilter(toggleFacet(view.filter, facet, value)), [setFilter, view.filter]);
  const onOpen = useCallback(
    (callId: string) => {
      setSelected(callId);
      open(callId);
    },
    [open],
  );
  const onSelect = useCallback(
    (callId: string) => {
      setSelected(callId);
      // With the pane open, it follows the arrow keys (in place: back skips the rows passed over).
      if (view.open) open(callId, 'replace');
    },
    [open, view.open],
  );
  const onClose = useCallback(() => open(undefined), [open]);
  const onLoadMore = useCallback(() => void feed.loadMore(), [feed]);
  const loadDetail = useCallback((callId: string) => feed.detail(callId), [feed]);
  const sessionCalls = useCallback((session: string) => feed.sessionCalls(session), [feed]);

  const empty = !state.loading && !state.problem && !state.error && state.rows.length === 0;
  const loosen = filtersToLoosen(state.filter);
  return (
    <div
      className="explorer"
      onKeyDown={(event) => {
        if (event.key === 'Escape' && view.open) onClose();
      }}
    >
      <ExplorerToolbar filter={view.filter} onFilter={setFilter} total={state.total} tookMs={state.tookMs} loading={state.loading === 'first'} />
      {state.notice ? (
        <p className="banner banner-info" role="status" data-testid="explorer-notice">
          {state.notice}
        </p>
      ) : null}
      {state.problem ? (
        <p className="note explorer-problem" role="status" data-testid="explorer-problem">
          {state.problem}
        </p>
      ) : null}
      {state.error ? (
        <p className="decision-problem" role="alert" data-testid="explorer-error">
          {state.error}{' '}
          <button type="button" onClick={() => void feed.retry()}>
            Try again
          </button>
        </p>
      ) : null}
      <ExplorerInsights
        stats={state.stats}
        error={state.statsError}
        filter={view.filter}
        onFilter={setFilter}
        sessionCalls={sessionCalls}
        onOpenCall={onOpen}
      />
      <div className={view.open ? 'explorer-body with-detail' : 'explorer-body'}>
        <FacetPanel facets={state.facets} filter={view.filter} onToggle={onToggle} />
        <div className="explorer-main">
          {state.newCalls > 0 && !atTop ? (
            <button
              type="button"
              className="new-calls-pill"
              data-testid="new-calls"
              onClick={() => {
                document.querySelector('[data-testid="explorer-scroll"]')?.scrollTo({ top: 0 });
                void feed.refresh();
              }}
            >
              {countOf(state.newCalls, 'new call', { grouped: true })} ↑
            </button>
          ) : null}
          {empty ? (
            <p className="empty" data-testid="explorer-empty">
              {loosen.length === 0
                ? 'No call is recorded yet.'
                : `No call matches. Loosen the ${joinWords(loosen)} ${nounFor(loosen.length, 'filter')} to see more.`}
            </p>
          ) : (
            <CallList
              rows={state.rows}
              total={state.total}
              hasMore={state.next !== undefined && state.error === undefined}
              loadingMore={state.loading === 'more'}
              selected={view.open ?? selected}
              onSelect={onSelect}
              onOpen={onOpen}
              onClose={onClose}
              onLoadMore={onLoadMore}
              onScrolledTop={setAtTop}
            />
          )}
        </div>
        {view.open ? <CallDetailPane callId={view.open} version={detailVersion} load={loadDetail} onClose={onClose} /> : null}
      </div>
    </div>
  );
}

/** "tool", "tool and outcome", "tool, outcome and search text". */
function joinWords(words: string[]): string {
  return words.length <= 1 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`;
}
