import { useCallback, useEffect, useMemo, useRef, useState, type HTMLAttributes } from 'react';
import type { ApprovalRequest } from '../../../shared/approval';
import { useMeasuredVirtualizer } from '../common/measuredVirtualizer';
import { useConsoleState } from '../consoleContext';
import { AgentGroupHeader } from './AgentGroupHeader';
import { ApproveHolds, ApproveHoldsContext, HeldBackNote } from './ApproveButton';
import { groupByAgent, headerOfEachRow, rowsOf, type ApprovalRow } from './agentGroups';
import { ApprovalCardBoundary } from './ApprovalCardBoundary';
import { KeyHelp } from './KeyHelp';
import { LeftPrompts } from './LeftPrompts';
import { NotificationSettings } from './NotificationSettings';
import { useApprovalKeys, type ApprovalKeys } from './useApprovalKeys';
import { useShownInFull } from './useShownInFull';
import { countOf, nounFor } from '../../../shared/plural';

/** About how tall a card is before it is drawn (arguments, a short preview, the decision). */
const ESTIMATED_CARD_HEIGHT = 360;
/** About how tall an agent's header is. */
const ESTIMATED_HEADER_HEIGHT = 56;
/** How many frames an opened prompt's card is waited for before focusing it is given up. */
const FOCUS_FRAMES = 30;

/**
 * Every prompt waiting for a person, grouped by the agent session that asked, oldest first. Only
 * the rows in view are drawn, so thousands of prompts stay as quick to scroll and answer as a
 * handful. Keys act on the selected prompt (`?` lists them).
 */
export function ApprovalsView() {
  const approvals = useConsoleState((s) => s.approvals);
  const groups = useMemo(() => groupByAgent(approvals), [approvals]);
  const rows = useMemo(() => rowsOf(groups), [groups]);
  const prompts = useMemo(() => groups.flatMap((group) => group.prompts), [groups]);
  const headerOf = useMemo(() => headerOfEachRow(rows), [rows]);
  const headerAbove = useCallback((first: number) => headerOf[first], [headerOf]);
  const { scrollRef, virtualizer } = useMeasuredVirtualizer<HTMLDivElement>(
    rows.length,
    (index) => (rows[index]!.kind === 'agent' ? ESTIMATED_HEADER_HEIGHT : ESTIMATED_CARD_HEIGHT),
    (index) => rowKey(rows[index]!),
    headerAbove,
  );
  // The header of the group at the top of the list stays pinned there, its answers at hand while reading its prompts.
  const pinnedIndex = virtualizer.range ? headerOf[virtualizer.range.startIndex] : undefined;
  const viewRef = useRef<HTMLDivElement>(null);
  // Approving buttons take no click until they have stood still a moment (ApproveButton).
  const [holds] = useState(() => new ApproveHolds());
  useEffect(() => holds.start(viewRef.current!), [holds]);
  const reveal = useCallback(
    (approvalId: string) => {
      const index = rows.findIndex((row) => row.kind === 'prompt' && row.request.approvalId === approvalId);
      if (index >= 0) virtualizer.scrollToIndex(index, { align: 'auto' });
    },
    [rows, virtualizer],
  );
  const keys = useApprovalKeys(prompts, viewRef, reveal);
  const shownInFull = useShownInFull(scrollRef, prompts);
  const selected = prompts.find((request) => request.approvalId === keys.selectedId);
  const opened = useConsoleState((s) => s.view.openedApprovalId);
  const openings = useConsoleState((s) => s.view.openings);
  const select = useRef(keys.select);
  select.current = keys.select;
  // A link or a notification opened a prompt: select it, scroll to its card and focus it, once per
  // opening (the prompt may arrive after the link was followed). Drawing again while the card is
  // awaited does not stop the wait: only a newer opening does.
  const shownOpening = useRef(0);
  useEffect(() => {
    if (!opened || shownOpening.current === openings) return;
    const index = rows.findIndex((row) => row.kind === 'prompt' && row.request.approvalId === opened);
    if (index < 0) return;
    const opening = (shownOpening.current = openings);
    select.current(opened);
    virtualizer.scrollToIndex(index, { align: 'start' });
    // The card is drawn a frame or two after the scroll; a few frames are waited for at most.
    let attempts = 0;
    requestAnimationFrame(function focusCard(): void {
      if (shownOpening.current !== opening) return;
      const slot = scrollRef.current?.querySelector<HTMLElement>(`[data-approval-slot="${CSS.escape(opened)}"]`);
      if (slot) slot.focus({ preventScroll: true });
      else if (++attempts < FOCUS_FRAMES) requestAnimationFrame(focusCard);
    });
  }, [opened, openings, rows, virtualizer, scrollRef]);
  return (
    <ApproveHoldsContext.Provider value={holds}>
      <div ref={viewRef} className="approvals-view">
        {keys.helpOpen ? <KeyHelp onClose={() => keys.setHelpOpen(false)} /> : null}
        <div className="list-head">
          <p className={approvals.length === 0 ? 'empty' : 'list-count'} role="status" data-testid="approval-count">
            {countText(approvals.length)}
          </p>
          {approvals.length === 0 ? null : (
            <button type="button" className="key-help-button" aria-keyshortcuts="?" aria-expanded={keys.helpOpen} onClick={() => keys.setHelpOpen(!keys.helpOpen)}>
              Keyboard shortcuts (?)
            </button>
          )}
          <NotificationSettings />
        </div>
        <LeftPrompts />
        <HeldBackNote holds={holds} />
        {approvals.length === 0 ? null : (
          <>
            <p className="visually-hidden" aria-live="polite" data-testid="approval-selected">
              {selected ? `Selected: ${selected.tool}, prompt ${prompts.indexOf(selected) + 1}.` : ''}
            </p>
            <div ref={scrollRef} className="virtual-scroll" data-testid="approval-list">
              <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
                {virtualizer.getVirtualItems().map((item) => {
                  const row = rows[item.index]!;
                  const pinned = row.kind === 'agent' && item.index === pinnedIndex && item.start < (virtualizer.scrollOffset ?? 0);
                  return (
                    <div
                      key={item.key}
                      data-index={item.index}
                      ref={virtualizer.measureElement}
                      style={pinned ? undefined : { transform: `translateY(${item.start}px)` }}
                      {...(row.kind === 'prompt' ? promptSlot(row.request, keys, opened) : { className: `virtual-item agent-slot${pinned ? ' agent-slot-pinned' : ''}` })}
                    >
                      {row.kind === 'agent' ? <AgentGroupHeader group={row.group} shownInFull={shownInFull} /> : <ApprovalCardBoundary request={row.request} />}
                    </div>
                  );
                })}
              </div>
            </div>
          </>
        )}
      </div>
    </ApproveHoldsContext.Provider>
  );
}

function countText(count: number): string {
  if (count === 0) return 'No calls are waiting for you.';
  return `${countOf(count, 'call')} ${nounFor(count, 'is', 'are')} waiting for you.`;
}

function rowKey(row: ApprovalRow): string {
  return row.kind === 'agent' ? `agent:${row.group.agentSession ?? ''}` : row.request.approvalId;
}

/** A prompt's slot: marked when selected (the keys act on it) or opened by a link, focusable, and selected by a click or Tab into it. */
function promptSlot(request: ApprovalRequest, keys: ApprovalKeys, opened: string | undefined): HTMLAttributes<HTMLDivElement> & { 'data-approval-slot': string; 'data-opened'?: 'true' } {
  const selected = request.approvalId === keys.selectedId;
  return {
    'data-approval-slot': request.approvalId,
    ...(request.approvalId === opened ? { 'data-opened': 'true' as const } : {}),
    'aria-current': selected ? ('true' as const) : undefined,
    tabIndex: -1,
    className: `virtual-item approval-slot${selected ? ' approval-selected' : ''}`,
    onFocus: () => keys.select(request.approvalId),
    onPointerDown: () => keys.select(request.approvalId),
  };
}
