import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import type { ExplorerFilter, Facet } from '../../../shared/explorer';
import { searchTextProblem, toggleFacet } from '../../store/explorerFeed';
import { VisibleText } from '../common/VisibleText';
import { ExportButton } from './ExportButton';
import { FACET_LABELS, shortId } from './FacetPanel';
import { countOf } from '../../../shared/plural';

/** How long typing pauses before the search runs. */
const SEARCH_PAUSE_MS = 400;

/** Quick time ranges, by how far back they reach. */
const RANGES: ReadonlyArray<{ label: string; ms: number }> = [
  { label: 'Last hour', ms: 3_600_000 },
  { label: 'Last 24 h', ms: 86_400_000 },
  { label: 'Last 7 days', ms: 7 * 86_400_000 },
];

/** The search box, the time range, the chosen filters as chips, and the view's count. */
export function ExplorerToolbar({
  filter,
  onFilter,
  total,
  tookMs,
  loading,
}: {
  filter: ExplorerFilter;
  onFilter: (filter: ExplorerFilter) => void;
  total: number | undefined;
  tookMs: number | undefined;
  loading: boolean;
}) {
  return (
    <div className="explorer-toolbar">
      <SearchBox text={filter.text ?? ''} onSearch={(text) => onFilter({ ...filter, text: text || undefined })} />
      <TimeRange filter={filter} onFilter={onFilter} />
      <span className="explorer-count" role="status" data-testid="explorer-count">
        {loading ? 'Loading…' : total === undefined ? '' : countOf(total, 'call', { grouped: true })}
        {!loading && tookMs !== undefined ? <span className="note"> ({Math.round(tookMs)} ms)</span> : null}
      </span>
      <ExportButton filter={filter} />
      <FilterChips filter={filter} onFilter={onFilter} />
    </div>
  );
}

function SearchBox({ text, onSearch }: { text: string; onSearch: (text: string) => void }) {
  const inputId = useId();
  const [typed, setTyped] = useState(text);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => setTyped(text), [text]);
  useEffect(() => () => clearTimeout(timer.current), []);
  const problem = searchTextProblem(typed);

  function run(value: string): void {
    clearTimeout(timer.current);
    if (!searchTextProblem(value) && value.trim() !== text) onSearch(value.trim());
  }
  function submit(event: FormEvent): void {
    event.preventDefault();
    run(typed);
  }

  return (
    <form className="explorer-search" role="search" onSubmit={submit}>
      <label htmlFor={inputId} className="visually-hidden">
        Search calls
      </label>
      <input
        id={inputId}
        type="search"
        placeholder="Search arguments, outputs, reasons, paths"
        value={typed}
        maxLength={500}
        spellCheck={false}
        data-testid="explorer-search"
        onChange={(event) => {
          const value = event.target.value;
          setTyped(value);
          clearTimeout(timer.current);
          timer.current = setTimeout(() => run(value), SEARCH_PAUSE_MS);
        }}
      />
      {problem ? (
        <span className="note search-problem" role="status" data-testid="explorer-search-problem">
          {problem}
        </span>
      ) : null}
    </form>
  );
}

/** A local date-time input's value for an ISO time ('' when none). */
function localInputValue(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function TimeRange({ filter, onFilter }: { filter: ExplorerFilter; onFilter: (filter: ExplorerFilter) => void }) {
  const fromId = useId();
  const toId = useId();
  const set = (key: 'from' | 'to', value: string) => {
    const date = value ? new Date(value) : undefined;
    onFilter({ ...filter, [key]: date && !Number.isNaN(date.getTime()) ? date.toISOString() : undefined });
  };
  return (
    <fieldset className="explorer-range">
      <legend className="visually-hidden">Time range</legend>
      <label htmlFor={fromId}>From</label>
      <input id={fromId} type="datetime-local" value={localInputValue(filter.from)} onChange={(event) => set('from', event.target.value)} />
      <label htmlFor={toId}>to</label>
      <input id={toId} type="datetime-local" value={localInputValue(filter.to)} onChange={(event) => set('to', event.target.value)} />
      <select
        aria-label="Quick time range"
        value=""
        onChange={(event) => {
          const ms = Number(event.target.value);
          if (ms > 0) onFilter({ ...filter, from: new Date(Date.now() - ms).toISOString(), to: undefined });
          else if (event.target.value === 'all') onFilter({ ...filter, from: undefined, to: undefined });
        }}
      >
        <option value="">Range…</option>
        {RANGES.map((range) => (
          <option key={range.label} value={range.ms}>
            {range.label}
          </option>
        ))}
        <option value="all">Any time</option>
      </select>
    </fieldset>
  );
}

function FilterChips({ filter, onFilter }: { filter: ExplorerFilter; onFilter: (filter: ExplorerFilter) => void }) {
  const chips: Array<{ label: string; without: ExplorerFilter }> = [];
  for (const facet of Object.keys(FACET_LABELS) as Facet[]) {
    for (const value of (filter[facet] ?? []) as string[]) {
      chips.push({ label: `${FACET_LABELS[facet]}: ${facet === 'session' ? shortId(value) : value}`, without: toggleFacet(filter, facet, value) });
    }
  }
  if (filter.text) chips.push({ label: `Text: “${filter.text}”`, without: { ...filter, text: undefined } });
  if (filter.from || filter.to) chips.push({ label: 'Time range', without: { ...filter, from: undefined, to: undefined } });
  if (chips.length === 0) return null;
  return (
    <div className="filter-chips" aria-label="Filters in use">
      {chips.map((chip) => (
        <button key={chip.label} type="button" className="filter-chip" title="Remove this filter" onClick={() => onFilter(chip.without)}>
          <VisibleText text={chip.label} /> <span aria-hidden="true">×</span>
        </button>
      ))}
      <button type="button" className="link-button" onClick={() => onFilter({})}>
        Clear all
      </button>
    </div>
  );
}
