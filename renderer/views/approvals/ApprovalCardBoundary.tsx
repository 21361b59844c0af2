import { Component, type ErrorInfo, type ReactNode } from 'react';
import type { ApprovalRequest } from '../../../shared/approval';
import { VisibleText } from '../common/VisibleText';
import { useBridgeAction } from '../common/useBridgeAction';
import { useConsoleSync } from '../consoleContext';
import { ApprovalCard } from './ApprovalCard';

/**
 * What is left of a prompt whose card failed to draw: why, and Deny, which needs nothing of the card.
 * It is no `.approval-card`: a prompt never shown is never counted as seen in full.
 */
function UnshownPrompt({ request, message }: { request: ApprovalRequest; message: string }) {
  const sync = useConsoleSync();
  const { inFlight, problem, run } = useBridgeAction();
  return (
    <article className="approval-card-unshown" data-testid="approval-card-unshown" data-approval-id={request.approvalId} role="alert">
      <p>
        This prompt cannot be shown: <VisibleText text={message} />. Deny it; the agent is told it was denied.
      </p>
      {problem ? (
        <p className="decision-problem" data-testid="decision-problem">
          {problem}
        </p>
      ) : null}
      <button type="button" className="deny" disabled={inFlight} onClick={() => void run(() => sync.decideApproval(request.approvalId, 'deny', ''))}>
        Deny
      </button>
    </article>
  );
}

interface BoundaryState {
  /** Why the card failed to draw, until its request changes. */
  failure?: string;
}

/**
 * One prompt's card, held apart from the others: a card that throws while drawing becomes a compact
 * note with Deny, and every other prompt stays usable (React unmounts the whole tree otherwise).
 */
export class ApprovalCardBoundary extends Component<{ request: ApprovalRequest }, BoundaryState> {
  override state: BoundaryState = {};

  static getDerivedStateFromError(error: unknown): BoundaryState {
    return { failure: error instanceof Error ? error.message : String(error) };
  }

  override componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`approval ${this.props.request.approvalId} could not be shown`, error, info.componentStack);
  }

  override componentDidUpdate(previous: { request: ApprovalRequest }): void {
    // A new version of the prompt gets another try.
    if (this.state.failure !== undefined && previous.request !== this.props.request) this.setState({ failure: undefined });
  }

  override render(): ReactNode {
    const { request } = this.props;
    if (this.state.failure !== undefined) return <UnshownPrompt request={request} message={this.state.failure} />;
    return <ApprovalCard request={request} />;
  }
}
