import { useId, useState } from 'react';
import type { ApprovalRequest } from '../../../../shared/approval';
import { useBridgeAction } from '../../common/useBridgeAction';
import { useConsoleSync } from '../../consoleContext';
import { ProblemNote } from '../../common/ProblemNote';

/** Reasons a person gives often: each denies at once, with that reason (none may read as another answer). */
export const PRESET_REASONS = ['Not needed', 'Too broad: narrow it down', 'Wrong file or command', 'Not what I asked for'] as const;

/**
 * Deny (with the reason typed, if any), "Deny and tell the agent…", whose text the agent receives
 * verbatim, to do something else instead, and under them "Deny because:" with the preset reasons,
 * each a denial in one click.
 */
export function DenyOptions({ request, reason }: { request: ApprovalRequest; reason: string }) {
  const sync = useConsoleSync();
  const tellId = useId();
  const presetsId = useId();
  const [telling, setTelling] = useState(false);
  const [told, setTold] = useState('');
  const { inFlight, problem, run } = useBridgeAction();

  function deny(tellAgent?: string, because = reason): Promise<void> {
    return run(() => sync.decideApproval(request.approvalId, 'deny', because, tellAgent !== undefined ? { tellAgent } : {}));
  }

  return (
    <div className="deny-options">
      <ProblemNote problem={problem} testId="decision-problem" />
      <div className="decision-buttons">
        <button type="button" className="deny" data-key="deny" aria-keyshortcuts="D" disabled={inFlight} onClick={() => void deny()}>
          Deny
        </button>
        <button type="button" className="deny" aria-expanded={telling} onClick={() => setTelling(!telling)}>
          Deny and tell the agent…
        </button>
      </div>
      <div className="reason-presets" role="group" aria-labelledby={presetsId}>
        <span id={presetsId} className="reason-presets-label">
          Deny because:
        </span>
        {PRESET_REASONS.map((preset) => (
          <button key={preset} type="button" className="reason-preset deny" aria-label={`Deny because: ${preset}`} disabled={inFlight} onClick={() => void deny(undefined, preset)}>
            {preset}
          </button>
        ))}
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
