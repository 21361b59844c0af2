import { useRef, type KeyboardEvent } from 'react';
import { TAB_NAMES, type TabName } from '../store/consoleState';

export { TAB_NAMES, type TabName };

/** The id of a tab's button (its panel's aria-labelledby). */
export function tabId(tab: TabName): string {
  return `tab-${tab.toLowerCase()}`;
}
/** The id of a tab's panel (its button's aria-controls). */
export function panelId(tab: TabName): string {
  return `panel-${tab.toLowerCase()}`;
}

/**
 * The tab strip (WAI-ARIA tabs: arrow keys move between tabs). Each tab's accessible name is its
 * label plus its badge, e.g. "Approvals 1".
 */
export function TabBar({
  active,
  badges,
  onSelect,
}: {
  active: TabName;
  badges: Partial<Record<TabName, number>>;
  onSelect: (tab: TabName) => void;
}) {
  const buttons = useRef<Partial<Record<TabName, HTMLButtonElement | null>>>({});

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    const step = event.key === 'ArrowRight' ? 1 : event.key === 'ArrowLeft' ? -1 : 0;
    if (step === 0) return;
    event.preventDefault();
    const next = TAB_NAMES[(TAB_NAMES.indexOf(active) + step + TAB_NAMES.length) % TAB_NAMES.length]!;
    onSelect(next);
    buttons.current[next]?.focus();
  }

  return (
    <div role="tablist" aria-label="Console views" className="tab-bar" onKeyDown={onKeyDown}>
      {TAB_NAMES.map((tab) => {
        const badge = badges[tab] ?? 0;
        return (
          <button
            key={tab}
            ref={(element) => {
              buttons.current[tab] = element;
            }}
            type="button"
            role="tab"
            id={tabId(tab)}
            aria-selected={tab === active}
            aria-controls={panelId(tab)}
            tabIndex={tab === active ? 0 : -1}
            className="tab"
            onClick={() => onSelect(tab)}
          >
            {tab}
            {badge > 0 ? (
              <>
                {' '}
                <span className="tab-badge">{badge}</span>
              </>
            ) : null}
          </button>
        );
      })}
    </div>
  );
}
