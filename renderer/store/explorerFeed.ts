import { createStore, type StoreApi } from 'zustand/vanilla';
import { FIRST_KINDS, type AuditRecord } from '../../shared/audit';
import type { ConsoleBridge } from '../../shared/contract';
import {
  MIN_SEARCH_CHARS,
  type CallDetail,
  type CallRow,
  type ExplorerFilter,
  type ExplorerPage,
  type ExplorerStats,
  type Facet,
  type FacetCounts,
} from '../../shared/explorer';
import { describe } from './consoleSync';

/** Kinds of a call's first record. */
const FIRST = new Set<string>(FIRST_KINDS);

/** Rows asked for per page: a few screens, so scrolling rarely waits. */
export const EXPLORER_PAGE_SIZE = 200;

/** What the explorer holds of the calls matching its filter. */
export interface ExplorerFeedState {
  readonly filter: ExplorerFilter;
  /** The calls loaded so far, newest first. */
  readonly rows: readonly CallRow[];
  /** Where the next (older) page starts; absent when every matching call is loaded. */
  readonly next: ExplorerPage['next'];
  readonly total: number | undefined;
  readonly facets: FacetCounts | undefined;
  /** What the gate said about how it took the filter. */
  readonly notice: string | undefined;
  /** Why the filter was not sent (a search text too short), said without a round trip. */
  readonly problem: string | undefined;
  /** Why a page could not be loaded. */
  readonly error: string | undefined;
  /** A page is on its way: the first one, or the next. */
  readonly loading: 'first' | 'more' | undefined;
  readonly tookMs: number | undefined;
  /** Calls invoked since the first page was loaded and not shown yet. */
  readonly newCalls: number;
  readonly stats: ExplorerStats | undefined;
  readonly statsError: string | undefined;
}

function initialState(filter: ExplorerFilter): ExplorerFeedState {
  return {
    filter,
    rows: [],
    next: undefined,
    total: undefined,
    facets: undefined,
    notice: undefined,
    problem: undefined,
    error: undefined,
    loading: undefined,
    tookMs: undefined,
    newCalls: 0,
    stats: undefined,
    statsError: undefined,
  };
}

/** Why a search text is not sent, or undefined when it is fine. */
export function searchTextProblem(text: string | undefined): string | undefined {
  const typed = text?.trim() ?? '';
  if (typed === '' || [...typed].length >= MIN_SEARCH_CHARS) return undefined;
  return `Type at least ${MIN_SEARCH_CHARS} characters to search (the search matches any part of arguments, outputs, reasons and paths).`;
}

/** The filter with one facet value turned on or off. */
/** How many of a session's newest calls its strip shows. */
export const SESSION_STRIP_CALLS = 300;

export function toggleFacet(filter: ExplorerFilter, facet: Facet, value: string): ExplorerFilter {
  const current = (filter[facet] ?? []) as string[];
  const values = current.includes(value) ? current.filter((v) => v !== value) : [...current, value];
  const next = { ...filter } as Record<string, unknown>;
  if (values.length > 0) next[facet] = values;
  else delete next[facet];
  return next as ExplorerFilter;
}

/** Which filters an empty result could loosen, in words ("the tool and the search text"). */
export function filtersToLoosen(filter: ExplorerFilter): string[] {
  const names: Record<string, string> = {
    tool: 'tool',
    outcome: 'outcome',
    decider: 'who decided',
    session: 'session',
    tier: 'tier',
    from: 'time range',
    to: 'time range',
    text: 'search text',
  };
  const used = Object.entries(filter)
    .filter(([, value]) => (Array.isArray(value) ? value.length > 0 : value !== undefined && value !== ''))
    .map(([key]) => names[key])
    .filter((name): name is string => name !== undefined);
  return [...new Set(used)];
}

/** The filter without empty values, the search text trimmed (what is sent and kept in the URL). */
export function cleanFilter(filter: ExplorerFilter): ExplorerFilter {
  const clean: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(filter)) {
    if (Array.isArray(value) ? value.length > 0 : typeof value === 'string' ? value.trim() !== '' : value !== undefined) {
      clean[key] = typeof value === 'string' ? value.trim() : value;
    }
  }
  return clean as ExplorerFilter;
}

/**
 * The explorer's calls: loads the newest page of a filter (with facet counts and the charts), the
 * next older page as the person scrolls, and counts calls that arrive meanwhile. An answer to a
 * filter the person has since left is dropped.
 */
export class ExplorerFeed {
  /** The feed's state, for the views (zustand, so React re-renders only what changed). */
  readonly store: StoreApi<ExplorerFeedState>;
  private generation = 0;

  constructor(private readonly bridge: Pick<ConsoleBridge, 'exploreCalls' | 'explorerStats' | 'callDetail'>) {
    this.store = createStore<ExplorerFeedState>()(() => initialState({}));
  }

  /** Shows the newest calls matching `filter` (a search text under three characters is refused at once). */
  async show(filter: ExplorerFilter, { keepRows = false }: { keepRows?: boolean } = {}): Promise<void> {
    const wanted = cleanFilter(filter);
    const generation = ++this.generation;
    const problem = searchTextProblem(wanted.text);
    if (problem) {
      this.store.setState({ ...initialState(wanted), problem });
      return;
    }
    // A refresh keeps the rows on screen until the new page replaces them, so nothing flickers.
    this.store.setState((s) =>
      keepRows ? { loading: 'first', problem: undefined, error: undefined } : { ...initialState(wanted), loading: 'first', stats: s.stats },
    );
    const stats = this.loadStats(wanted, generation);
    try {
      const page = await this.bridge.exploreCalls({ filter: wanted, limit: EXPLORER_PAGE_SIZE, facets: true });
      if (generation !== this.generation) return;
      this.store.setState({
        rows: page.rows,
        next: page.next,
        total: page.total,
        facets: page.facets,
        notice: page.notice,
        tookMs: page.tookMs,
        loading: undefined,
        newCalls: 0,
      });
    } catch (failure) {
      if (generation !== this.generation) return;
      this.store.setState({ loading: undefined, error: `Could not load the calls: ${describe(failure)}` });
    }
    await stats;
  }

  /** Asks again after a failed page: the next page when some rows are shown, else the view. */
  retry(): Promise<void> {
    return this.store.getState().rows.length > 0 ? this.loadMore() : this.refresh();
  }

  /** Loads the next older page, unless one is on its way or every call is loaded. */
  async loadMore(): Promise<void> {
    const state = this.store.getState();
    if (state.loading || !state.next || state.problem) return;
    const generation = this.generation;
    this.store.setState({ loading: 'more', error: undefined });
    try {
      const page = await this.bridge.exploreCalls({ filter: state.filter, limit: EXPLORER_PAGE_SIZE, cursor: state.next });
      if (generation !== this.generation) return;
      this.store.setState((s) => ({ rows: [...s.rows, ...page.rows], next: page.next, loading: undefined, tookMs: page.tookMs }));
    } catch (failure) {
      if (generation !== this.generation) return;
      this.store.setState({ loading: undefined, error: `Could not load more calls: ${describe(failure)}` });
    }
  }

  /** Loads the view again from the newest call (the "new calls" pill, or new calls while at the top). */
  refresh(): Promise<void> {
    return this.show(this.store.getState().filter, { keepRows: true });
  }

  /** Counts a call that arrived after the page was loaded (its first record). */
  noteAppended(record: AuditRecord): void {
    if (!FIRST.has(record.kind)) return;
    this.store.setState((s) => ({ newCalls: s.newCalls + 1 }));
  }

  /** The newest calls of one agent session under the current filter, for its strip in the sessions list. */
  async sessionCalls(session: string, limit = SESSION_STRIP_CALLS): Promise<readonly CallRow[]> {
    const page = await this.bridge.exploreCalls({ filter: { ...this.store.getState().filter, session: [session] }, limit });
    return page.rows;
  }

  /** One call whole, for the detail pane. */
  detail(callId: string): Promise<CallDetail> {
    return this.bridge.callDetail({ callId });
  }

  private async loadStats(filter: ExplorerFilter, generation: number): Promise<void> {
    try {
      const stats = await this.bridge.explorerStats({ filter });
      if (generation === this.generation) this.store.setState({ stats, statsError: undefined });
    } catch (failure) {
      if (generation === this.generation) this.store.setState({ statsError: `Could not draw the charts: ${describe(failure)}` });
    }
  }
}

/** The facets in the order the panel shows them. */
