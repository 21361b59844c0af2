import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useRef, type KeyboardEvent, type UIEvent } from 'react';
import type { CallRow } from '../../../shared/explorer';
import { revealInvisibles } from '../../format/invisibles';
import { VisibleText } from '../common/VisibleText';
import { decidedText, durationText, rowTime } from './callRowText';

/** Every row is one line high, so the list is placed without measuring (smooth over a million calls). */
export const CALL_ROW_HEIGHT = 32;
/** The next page is asked for when the drawn rows come this close to the last one loaded. */
const LOAD_AHEAD_ROWS = 60;

/** The calls, one per line, newest first; only the rows in view are in the page. */
export function CallList({
  rows,
  total,
  hasMore,
  loadingMore,
  selected,
  onSelect,
  onOpen,
  onClose,
  onLoadMore,
  onScrolledTop,
}: {
  rows: readonly CallRow[];
  total: number | undefined;
  hasMore: boolean;
  loadingMore: boolean;
  /** The call whose detail is open. */
  selected: string | undefined;
  /** Marks a row (arrow keys) without opening it. */
  onSelect: (callId: string) => void;
  /** Opens a row's detail (click, Enter). */
  onOpen: (callId: string) => void;
  /** Esc. */
  onClose: () => void;
  onLoadMore: () => void;
  /** Whether the list is scrolled to its top (new calls then show at once). */
  onScrolledTop: (atTop: boolean) => void;
}) {
  const scrollRef = useRef<HTMLDivElement>(null);
  const count = rows.length + (hasMore ? 1 : 0);
  const virtualizer = useVirtualizer({
    count,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => CALL_ROW_HEIGHT,
    getItemKey: (index) => rows[index]?.callId ?? 'loading-more',
    overscan: 12,
  });
  const items = virtualizer.getVirtualItems();
  const lastDrawn = items.at(-1)?.index ?? 0;

  useEffect(() => {
    if (hasMore && !loadingMore && lastDrawn >= rows.length - LOAD_AHEAD_ROWS) onLoadMore();
  }, [hasMore, loadingMore, lastDrawn, rows.length, onLoadMore]);

  const selectedIndex = selected === undefined ? -1 : rows.findIndex((row) => row.callId === selected);

  function onKeyDown(event: KeyboardEvent<HTMLDivElement>): void {
    if (event.key === 'Escape') {
      onClose();
      return;
    }
    if (rows.length === 0) return;
    if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
      event.preventDefault();
      const step = event.key === 'ArrowDown' ? 1 : -1;
      const index = Math.min(rows.length - 1, Math.max(0, selectedIndex < 0 ? 0 : selectedIndex + step));
      onSelect(rows[index]!.callId);
      virtualizer.scrollToIndex(index, { align: 'auto' });
    } else if (event.key === 'Enter' && selectedIndex >= 0) {
      event.preventDefault();
      onOpen(rows[selectedIndex]!.callId);
    }
  }

  function onScroll(event: UIEvent<HTMLDivElement>): void {
    onScrolledTop(event.currentTarget.scrollTop < CALL_ROW_HEIGHT);
  }

  return (
    <div className="call-list" role="table" aria-label="Calls" aria-rowcount={total ?? rows.length}>
      <div className="call-list-head" role="row">
        {['Time', 'Agent', 'Tool', 'Arguments', 'Decided', 'Outcome', 'Waited', 'Ran'].map((name) => (
          <span key={name} role="columnheader" className={`call-col-${name.toLowerCase()}`} title={name}>
            {name}
          </span>
        ))}
      </div>
      <div
        ref={scrollRef}
        className="call-list-scroll"
        tabIndex={0}
        data-testid="explorer-scroll"
        aria-label="Calls, newest first: arrow keys move, Enter opens, Esc closes"
        onKeyDown={onKeyDown}
        onScroll={onScroll}
      >
        <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
          {items.map((item) => {
            const row = rows[item.index];
            const style = { transform: `translateY(${item.start}px)`, height: CALL_ROW_HEIGHT };
            if (!row) {
              return (
                <div key={item.key} className="virtual-item call-row call-row-loading" style={style} role="row" data-testid="explorer-loading-more">
                  <span role="cell">Loading older calls…</span>
                </div>
              );
            }
            return (
              <CallLine
                key={item.key}
                row={row}
                index={item.index}
                style={style}
                selected={row.callId === selected}
                onOpen={onOpen}
              />
            );
          })}
        </div>
      </div>
    </div>
  );
}

/** A row's agent cell title: the agent's name in full and its session. */
function agentTitle(row: CallRow): string | undefined {
  const name = row.agent ?? row.source ?? '';
  return revealInvisibles(row.session ? `${name} · session ${row.session}` : name) || undefined;
}

function CallLine({
  row,
  index,
  style,
  selected,
  onOpen,
}: {
  row: CallRow;
  index: number;
  style: React.CSSProperties;
  selected: boolean;
  onOpen: (callId: string) => void;
}) {
  return (
    <div
      className="virtual-item call-row"
      style={style}
      role="row"
      aria-rowindex={index + 1}
      aria-selected={selected}
      data-testid="explorer-row"
      data-call-id={row.callId}
      data-outcome={row.outcome}
      onClick={() => onOpen(row.callId)}
    >
      <span role="cell" className="call-col-time" title={row.time}>
        {rowTime(row.time)}
      </span>
      <span role="cell" className="call-col-agent" title={agentTitle(row)}>
        <VisibleText text={row.agent ?? row.source ?? ''} />
      </span>
      <span role="cell" className="call-col-tool" title={revealInvisibles(row.tool)}>
        <VisibleText text={row.tool} />
      </span>
      <span role="cell" className="call-col-arguments" title={revealInvisibles(row.argsBrief)}>
        <code>
          <VisibleText text={row.argsBrief} />
        </code>
      </span>
      <span role="cell" className={`call-col-decided decision-${row.decision ?? 'none'}`} title={revealInvisibles(decidedText(row))}>
        <VisibleText text={decidedText(row)} />
      </span>
      <span role="cell" className="call-col-outcome" title={row.errorCode ? `${row.outcome} ${row.errorCode}` : row.outcome}>
        <span className={`outcome outcome-${row.outcome}`}>{row.outcome}</span>
        {row.errorCode ? <code className="error-code">{row.errorCode}</code> : null}
      </span>
      <span role="cell" className="call-col-waited numeric">
        {durationText(row.waitedMs)}
      </span>
      <span role="cell" className="call-col-ran numeric">
        {durationText(row.ranMs)}
      </span>
    </div>
  );
}
