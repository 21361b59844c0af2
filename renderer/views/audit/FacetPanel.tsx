import { useState } from 'react';
import { FACETS, type ExplorerFilter, type Facet, type FacetCounts } from '../../../shared/explorer';
import { VisibleText } from '../common/VisibleText';

/** Facet names as the panel shows them. */
export const FACET_LABELS: Record<Facet, string> = {
  tool: 'Tool',
  outcome: 'Outcome',
  decider: 'Decided by',
  session: 'Agent session',
  tier: 'Tier',
};

/** Values shown per facet before "Show all". */
const SHOWN_VALUES = 10;

/** The facets with their counts; a click adds or removes that value from the filter. */
export function FacetPanel({
  facets,
  filter,
  onToggle,
}: {
  facets: FacetCounts | undefined;
  filter: ExplorerFilter;
  onToggle: (facet: Facet, value: string) => void;
}) {
  return (
    <nav className="facet-panel" aria-label="Facets">
      {FACETS.map((facet) => (
        <FacetGroup key={facet} facet={facet} counts={facets?.[facet] ?? []} chosen={(filter[facet] ?? []) as string[]} onToggle={onToggle} />
      ))}
    </nav>
  );
}

function FacetGroup({
  facet,
  counts,
  chosen,
  onToggle,
}: {
  facet: Facet;
  counts: ReadonlyArray<{ value: string; count: number }>;
  chosen: string[];
  onToggle: (facet: Facet, value: string) => void;
}) {
  const [all, setAll] = useState(false);
  // A chosen value stays listed even when nothing matches it now, so it can be unchosen.
  const listed = [...counts, ...chosen.filter((value) => !counts.some((c) => c.value === value)).map((value) => ({ value, count: 0 }))];
  const shown = all ? listed : listed.slice(0, SHOWN_VALUES);
  return (
    <section className="facet-group" aria-label={FACET_LABELS[facet]} data-testid={`facet-${facet}`}>
      <h3>{FACET_LABELS[facet]}</h3>
      {listed.length === 0 ? <p className="note">none</p> : null}
      <ul>
        {shown.map(({ value, count }) => {
          const on = chosen.includes(value);
          return (
            <li key={value}>
              <button
                type="button"
                className="facet-value"
                aria-pressed={on}
                data-facet={facet}
                data-value={value}
                onClick={() => onToggle(facet, value)}
                title={value}
              >
                <span className="facet-name">
                  <VisibleText text={facet === 'session' ? shortId(value) : value} />
                </span>
                <span className="facet-count numeric">{count.toLocaleString('en-US')}</span>
              </button>
            </li>
          );
        })}
      </ul>
      {listed.length > SHOWN_VALUES ? (
        <button type="button" className="link-button" onClick={() => setAll(!all)}>
          {all ? 'Show fewer' : `Show all ${listed.length}`}
        </button>
      ) : null}
    </section>
  );
}

/** A long id cut to its head, for a narrow column (the full id is the title). */
export function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 12)}…` : id;
}
