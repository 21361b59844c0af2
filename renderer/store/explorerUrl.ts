import { ExplorerFilterSchema, FACETS, type ExplorerFilter, type Facet } from '../../shared/explorer';

/**
 * What the audit explorer shows, as kept in the console URL's query (`?tool=read_file&q=notes`):
 * the filter, the call whose detail is open, and the call whose raw trail is shown (Live's
 * "Audit trail" link). The token lives in the fragment and is stripped from it; the query is kept,
 * so a reload, back/forward and a copied console URL open the same view.
 */
export interface ExplorerLocation {
  /** The filters (callId is carried as `trail`, not here). */
  readonly filter: ExplorerFilter;
  /** The call whose detail pane is open. */
  readonly open?: string;
  /** The call whose records are listed one by one (Live's "Audit trail" link). */
  readonly trail?: string;
}

/** Query keys of the scalar filters; the facets use their own names and repeat for several values. */
const SCALAR_KEYS = { from: 'from', to: 'to', text: 'q' } as const;
const OPEN_KEY = 'open';
const TRAIL_KEY = 'call';
/** Every query key the explorer owns; any other key in the URL is left as it was. */
export const EXPLORER_KEYS: readonly string[] = [...FACETS, ...Object.values(SCALAR_KEYS), OPEN_KEY, TRAIL_KEY];

/** Reads the explorer's view from a URL query; values the filter cannot hold are dropped, not fatal. */
export function explorerFromSearch(search: string): ExplorerLocation {
  const params = new URLSearchParams(search);
  const filter: ExplorerFilter = {};
  for (const facet of FACETS) {
    const values = facetValues(facet, params.getAll(facet));
    if (values.length > 0) (filter as Record<Facet, string[]>)[facet] = values;
  }
  for (const [field, key] of Object.entries(SCALAR_KEYS) as Array<[keyof typeof SCALAR_KEYS, string]>) {
    const value = params.get(key);
    if (value && ExplorerFilterSchema.shape[field].safeParse(value).success) filter[field] = value;
  }
  const open = params.get(OPEN_KEY)?.slice(0, 100) || undefined;
  const trail = params.get(TRAIL_KEY)?.slice(0, 100) || undefined;
  return { filter, ...(open ? { open } : {}), ...(trail ? { trail } : {}) };
}

/** Writes the explorer's view into a URL query, keeping keys that are not the explorer's. */
export function searchWithExplorer(search: string, view: ExplorerLocation): string {
  const params = new URLSearchParams(search);
  for (const key of EXPLORER_KEYS) params.delete(key);
  for (const facet of FACETS) for (const value of view.filter[facet] ?? []) params.append(facet, value);
  for (const [field, key] of Object.entries(SCALAR_KEYS) as Array<[keyof typeof SCALAR_KEYS, string]>) {
    const value = view.filter[field];
    if (value) params.set(key, value);
  }
  if (view.open) params.set(OPEN_KEY, view.open);
  if (view.trail) params.set(TRAIL_KEY, view.trail);
  const text = params.toString();
  return text ? `?${text}` : '';
}

/** Whether a URL query holds an explorer view (the console then opens on the Audit tab). */
export function hasExplorerView(search: string): boolean {
  const params = new URLSearchParams(search);
  return EXPLORER_KEYS.some((key) => params.has(key));
}

/** The same view (for skipping a history entry that would change nothing). */
export function sameExplorerView(a: ExplorerLocation, b: ExplorerLocation): boolean {
  return searchWithExplorer('', a) === searchWithExplorer('', b);
}

/** The values of one facet the filter can hold (as its schema says), duplicates and the excess left out. */
function facetValues(facet: Facet, raw: string[]): string[] {
  const schema = ExplorerFilterSchema.shape[facet];
  const values = [...new Set(raw)].filter((value) => value !== '' && schema.safeParse([value]).success);
  while (values.length > 0 && !schema.safeParse(values).success) values.pop();
  return values;
}
