import { useCallback, useState } from 'react';
import { CALLS_CAP } from '../../store/consoleState';
import { useMeasuredVirtualizer } from '../common/measuredVirtualizer';
import { useConsoleState } from '../consoleContext';
import { CallRow, LIVE_COLUMNS, NUMERIC_COLUMNS, offersUndo } from './CallRow';
import { CallOutputRow } from './CallTerminal';
import { CallUndoRow } from './CallUndoRow';

/** About how tall a call's row is before it is drawn. */
const ESTIMATED_ROW_HEIGHT = 40;
/** Stands in for the rows scrolled out of view, so the scrollbar keeps the whole list's length. */
function Spacer({ height }: { height: number }) {
  if (height <= 0) return null;
  return (
    <tbody aria-hidden="true">
      <tr className="virtual-spacer">
        <td colSpan={LIVE_COLUMNS.length} style={{ height }} />
      </tr>
    </tbody>
  );
}

/**
 * Every call through the gate, newest first, updated as each moves through the pipeline. Only the
 * rows in view are drawn (each call is a body of its own: its row and, for a shell, its terminal),
 * so a flood of calls costs the page no more than a screenful.
 */
export function LiveView() {
  // Only the calls in view are looked up: the list may hold 100,000.
  const { byId, order } = useConsoleState((s) => s.calls);
  const { scrollRef, virtualizer } = useMeasuredVirtualizer<HTMLTableSectionElement>(order.length, ESTIMATED_ROW_HEIGHT, (index) => order[index]!);
  // The calls whose Undo the person opened (a row under each); kept here so scrolling away and back keeps it open.
  const [undoOpen, setUndoOpen] = useState<ReadonlySet<string>>(new Set());
  const toggleUndo = useCallback((callId: string) => {
    setUndoOpen((open) => {
      const next = new Set(open);
      if (!next.delete(callId)) next.add(callId);
      return next;
    });
  }, []);
  if (order.length === 0) {
    return <p className="empty">No calls yet. Calls appear here as agents make them.</p>;
  }
  const items = virtualizer.getVirtualItems();
  const before = items[0]?.start ?? 0;
  const after = items.length > 0 ? virtualizer.getTotalSize() - items.at(-1)!.end : 0;
  return (
    <div ref={scrollRef} className="virtual-scroll" data-testid="call-list">
      <table className="data-table live-table" aria-label="Calls">
        <thead>
          <tr>
            {LIVE_COLUMNS.map((column) => (
              <th key={column} scope="col" className={NUMERIC_COLUMNS.has(column) ? 'numeric' : undefined}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <Spacer height={before} />
        {items.map((item) => {
          const call = byId[order[item.index]!];
          if (!call) return null;
          return (
            <tbody key={item.key} data-index={item.index} ref={virtualizer.measureElement}>
              <CallRow call={call} undoOpen={undoOpen.has(call.callId)} onToggleUndo={toggleUndo} />
              <CallOutputRow call={call} />
              {undoOpen.has(call.callId) && offersUndo(call) ? <CallUndoRow call={call} /> : null}
            </tbody>
          );
        })}
        <Spacer height={after} />
      </table>
      {order.length >= CALLS_CAP ? (
        <p className="note live-cap-note" data-testid="live-cap-note">
          Live keeps the newest {CALLS_CAP.toLocaleString('en')} calls; every older one is in the Audit view.
        </p>
      ) : null}
    </div>
  );
}
