import { useConsoleState } from '../consoleContext';
import { ApprovalCard } from './ApprovalCard';

/** Every prompt waiting for a person, the one that expires first on top. */
export function ApprovalsView() {
  const approvals = useConsoleState((s) => s.approvals);
  if (approvals.length === 0) return <p className="empty">No calls are waiting for you.</p>;
  return (
    <div className="approval-list">
      {approvals.map((request) => (
        <ApprovalCard key={request.approvalId} request={request} />
      ))}
    </div>
  );
}
