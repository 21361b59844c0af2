import { useMemo } from 'react';
import type { ApprovalRequest } from '../../../shared/approval';
import { useMeasuredVirtualizer } from '../common/measuredVirtualizer';
import { useConsoleState } from '../consoleContext';
import { ApprovalCard } from './ApprovalCard';

/** About how tall a card is before it is drawn (arguments, a short preview, the decision). */
const ESTIMATED_CARD_HEIGHT = 360;

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
  const perAgent = useMemo(() => promptsPerAgent(approvals), [approvals]);
  const { scrollRef, virtualizer } = useMeasuredVirtualizer<HTMLDivElement>(approvals.length, ESTIMATED_CARD_HEIGHT, (index) =>
    approvals[index]!.approvalId,
  );
  if (approvals.length === 0) return <p className="empty">No calls are waiting for you.</p>;
  return (
    <>
      <p className="list-count" data-testid="approval-count">
        {approvals.length === 1 ? '1 call is waiting for you.' : `${approvals.length} calls are waiting for you.`}
      </p>
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
