import { useId, useState } from 'react';
import type { ApprovalRequest } from '../../../../shared/approval';
import { useBridgeAction } from '../../common/useBridgeAction';
import { useConsoleSync } from '../../consoleContext';
import { ProblemNote } from '../../common/ProblemNote';

/** Reasons a person gives often, one click each (they fill the Reason box; Deny sends it). */
export const PRESET_REASONS = ['Not needed', 'Too broad: narrow it down', 'Wrong file or command', 'Ask me before doing this'] as const;

/**
 * Deny, with an optional reason (presets fill it in), and "Deny and tell the agent…", whose text
 * the agent receives verbatim, to do something else instead.
 */
export function DenyOptions({ request, reason, setReason }: { request: ApprovalRequest; reason: string; setReason: (reason: string) => void }) {
  const sync = useConsoleSync();
  const tellId = useId();
  const [telling, setTelling] = useState(false);
  const [told, setTold] = useState('');
  const { inFlight, problem, run } = useBridgeAction();

  function deny(tellAgent?: string): Promise<void> {
    return run(() => sync.decideApproval(request.approvalId, 'deny', reason, tellAgent !== undefined ? { tellAgent } : {}));
  }

  return (
    <div className="deny-options">
      <div className="reason-presets" role="group" aria-label="Preset reasons">
        {PRESET_REASONS.map((preset) => (
          <button key={preset} type="button" className="reason-preset" aria-label={`Reason: ${preset}`} aria-pressed={reason === preset} onClick={() => setReason(preset)}>
            {preset}
          </button>
        ))}
      </div>
      <ProblemNote problem={problem} testId="decision-problem" />
      <div className="decision-buttons">
        <button type="button" className="deny" data-key="deny" aria-keyshortcuts="D" disabled={inFlight} onClick={() => void deny()}>
          Deny
        </button>
        <button type="button" className="deny" aria-expanded={telling} onClick={() => setTelling(!telling)}>
          Deny and tell the agent…
        </button>
      </div>
      {telling ? (
        <div className="tell-agent">
          <label htmlFor={tellId}>Tell the agent (sent exactly as written)</label>
          <textarea id={tellId} value={told} maxLength={4000} rows={3} onChange={(event) => setTold(event.target.value)} />
          <button type="button" className="deny" disabled={inFlight || told.trim() === ''} onClick={() => void deny(told)}>
            Deny and send
          </button>
        </div>
      ) : null}
    </div>
  );
}
