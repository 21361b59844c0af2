import { useCallback, useEffect, useRef, useState } from 'react';
import type { ExplorerFilter } from '../../../shared/explorer';
import type { ExplorerFeed } from '../../store/explorerFeed';
import { cleanFilter } from '../../store/explorerFeed';
import { explorerFromSearch, hasExplorerView, sameExplorerView, searchWithExplorer, type ExplorerLocation } from '../../store/explorerUrl';
import type { ConsoleSync } from '../../store/consoleSync';

/** How a change of view enters the browser's history: a new entry (back returns), or in place. */
export type HistoryMode = 'push' | 'replace';

/**
 * The explorer's view kept in the console URL: read at start and on back/forward, written on every
 * change while the Audit tab is shown (and taken out of the URL while another tab is, so a reload
 * there does not jump to Audit). The raw trail of one call (Live's "Audit trail" link) rides along
 * as `call=`.
 */
export function useExplorerLocation(feed: ExplorerFeed, sync: ConsoleSync, active: boolean, trailCallId: string | undefined) {
  const [view, setView] = useState<ExplorerLocation>(() => explorerFromSearch(currentSearch()));
  const viewRef = useRef(view);
  viewRef.current = view;
  const activeRef = useRef(active);
  activeRef.current = active;

  const writeUrl = useCallback((next: ExplorerLocation, mode: HistoryMode) => {
    const search = searchWithExplorer(window.location.search, next);
    const url = `${window.location.pathname}${search}${window.location.hash}`;
    if (search === window.location.search) return;
    if (mode === 'push') window.history.pushState(null, '', url);
    else window.history.replaceState(null, '', url);
  }, []);

  // The view the URL names at start: its trail at once (the console opens on Audit for it), its
  // calls the first time the tab is shown (a console opened on Live does not count a million calls).
  const started = useRef(false);
  useEffect(() => {
    if (viewRef.current.trail) void sync.showAuditTrail(viewRef.current.trail);
  }, [sync]);
  useEffect(() => {
    if (!active || started.current) return;
    started.current = true;
    void feed.show(viewRef.current.filter);
  }, [active, feed]);

  /** Moves to another view: its calls load when the filter changed; the URL follows. */
  const navigate = useCallback(
    (next: ExplorerLocation, mode: HistoryMode = 'push') => {
      const clean = { ...next, filter: cleanFilter(next.filter) };
      const previous = viewRef.current;
      if (sameExplorerView(previous, clean)) return;
      viewRef.current = clean;
      setView(clean);
      if (started.current && !sameExplorerView({ filter: previous.filter }, { filter: clean.filter })) void feed.show(clean.filter);
      if (activeRef.current) writeUrl(clean, mode);
    },
    [feed, writeUrl],
  );

  // Live's "Audit trail" link (or "Every call") changed the trail: the URL follows, as a new entry.
  const shownTrail = useRef(trailCallId);
  useEffect(() => {
    if (shownTrail.current === trailCallId) return;
    shownTrail.current = trailCallId;
    if (viewRef.current.trail === trailCallId) return;
    navigate({ ...viewRef.current, trail: trailCallId }, 'push');
  }, [trailCallId, navigate]);

  // The URL carries the explorer only while its tab is shown.
  useEffect(() => {
    if (active) writeUrl(viewRef.current, 'replace');
    else writeUrl({ filter: {} }, 'replace');
  }, [active, writeUrl]);

  // Back and forward: the view the URL names, on the Audit tab.
  useEffect(() => {
    function onPopState(): void {
      const search = window.location.search;
      const next = explorerFromSearch(search);
      if (hasExplorerView(search) && !activeRef.current) sync.showTab('Audit');
      const previous = viewRef.current;
      viewRef.current = next;
      setView(next);
      if (started.current && !sameExplorerView({ filter: previous.filter }, { filter: next.filter })) void feed.show(next.filter);
      if (next.trail !== previous.trail) {
        if (next.trail) void sync.showAuditTrail(next.trail);
        else sync.clearAuditTrail();
      }
    }
    window.addEventListener('popstate', onPopState);
    return () => window.removeEventListener('popstate', onPopState);
  }, [feed, sync]);

  const setFilter = useCallback((filter: ExplorerFilter) => navigate({ filter, open: viewRef.current.open, trail: viewRef.current.trail }), [navigate]);
  const open = useCallback((callId: string | undefined, mode: HistoryMode = 'push') => navigate({ ...viewRef.current, open: callId }, mode), [navigate]);
  return { view, navigate, setFilter, open };
}

// The console runs in a browser; the server-side rendering of tests has no window (and no URL).
function currentSearch(): string {
  return typeof window === 'undefined' ? '' : window.location.search;
}
