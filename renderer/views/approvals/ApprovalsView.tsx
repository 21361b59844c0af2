import { useEffect, useMemo, useRef } from 'react';
import type { ApprovalRequest } from '../../../shared/approval';
import { useMeasuredVirtualizer } from '../common/measuredVirtualizer';
import { useConsoleState } from '../consoleContext';
import { ApprovalCard } from './ApprovalCard';
import { NotificationSettings } from './NotificationSettings';

/** About how tall a card is before it is drawn (arguments, a short preview, the decision). */
const ESTIMATED_CARD_HEIGHT = 360;

/** How many frames an opened prompt's card is waited for before focusing it is given up. */
const FOCUS_FRAMES = 30;

/** How many prompts each agent session has waiting, for "Deny all from this agent". */
function promptsPerAgent(approvals: readonly ApprovalRequest[]): ReadonlyMap<string, number> {
  const counts = new Map<string, number>();
  for (const request of approvals) {
    if (request.agentSession) counts.set(request.agentSession, (counts.get(request.agentSession) ?? 0) + 1);
  }
  return counts;
}

/**
 * Every prompt waiting for a person, the one that expires first on top. Only the cards in view are
 * drawn, so thousands of prompts stay as quick to scroll and answer as a handful.
 */
export function ApprovalsView() {
  const approvals = useConsoleState((s) => s.approvals);
  const opened = useConsoleState((s) => s.view.openedApprovalId);
  const openings = useConsoleState((s) => s.view.openings);
  const perAgent = useMemo(() => promptsPerAgent(approvals), [approvals]);
  const { scrollRef, virtualizer } = useMeasuredVirtualizer<HTMLDivElement>(approvals.length, ESTIMATED_CARD_HEIGHT, (index) =>
    approvals[index]!.approvalId,
  );
  // A link or a notification opened a prompt: scroll to its card and focus it, once per opening
  // (the prompt may arrive after the link was followed).
  const shownOpening = useRef(0);
  useEffect(() => {
    if (!opened || shownOpening.current === openings) return;
    const index = approvals.findIndex((request) => request.approvalId === opened);
    if (index < 0) return;
    shownOpening.current = openings;
    virtualizer.scrollToIndex(index, { align: 'start' });
    // The card is drawn a frame or two after the scroll; a few frames are waited for at most.
    let attempts = 0;
    let frame = requestAnimationFrame(function focusCard(): void {
      const slot = scrollRef.current?.querySelector<HTMLElement>(`[data-slot-of="${CSS.escape(opened)}"]`);
      if (slot) slot.focus({ preventScroll: true });
      else if (++attempts < FOCUS_FRAMES) frame = requestAnimationFrame(focusCard);
    });
    return () => cancelAnimationFrame(frame);
  }, [opened, openings, approvals, virtualizer, scrollRef]);
  if (approvals.length === 0) {
    return (
      <>
        <NotificationSettings />
        <p className="empty">No calls are waiting for you.</p>
      </>
    );
  }
  return (
    <>
      <div className="approvals-toolbar">
        <p className="list-count" data-testid="approval-count">
          {approvals.length === 1 ? '1 call is waiting for you.' : `${approvals.length} calls are waiting for you.`}
        </p>
        <NotificationSettings />
      </div>
      <div ref={scrollRef} className="virtual-scroll" data-testid="approval-list">
        <div className="virtual-space" style={{ height: virtualizer.getTotalSize() }}>
          {virtualizer.getVirtualItems().map((item) => {
            const request = approvals[item.index]!;
            return (
              <div
                key={item.key}
                data-index={item.index}
                ref={virtualizer.measureElement}
                className="virtual-item approval-slot"
                data-slot-of={request.approvalId}
                data-opened={request.approvalId === opened ? 'true' : undefined}
                tabIndex={-1}
                style={{ transform: `translateY(${item.start}px)` }}
              >
                <ApprovalCard request={request} promptsFromAgent={request.agentSession ? perAgent.get(request.agentSession) : undefined} />
              </div>
            );
          })}
        </div>
      </div>
    </>
  );
}
