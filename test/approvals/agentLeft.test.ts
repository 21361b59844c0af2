import { describe, expect, it } from 'vitest';
import { agentLeftReason, withdrawalReason } from '../../main/approvals/agentLeft';

/** A signal aborted with this reason. */
function abortedWith(reason: unknown): AbortSignal {
  const controller = new AbortController();
  controller.abort(reason);
  return controller.signal;
}

describe('why a call whose signal aborted is withdrawn', () => {
  it('says the agent left when the signal says so, as text (a cancel notification) or as an Error (a closed connection)', () => {
    const reason = agentLeftReason('its stdio bridge closed');
    expect(reason).toBe('the agent left: its stdio bridge closed');
    expect(withdrawalReason(abortedWith(reason))).toBe(reason);
    expect(withdrawalReason(abortedWith(new Error(reason)))).toBe(reason);
  });

  it('says the agent cancelled the call for any other reason, so an agent cannot word the outcome', () => {
    expect(withdrawalReason(abortedWith(undefined))).toBe('the agent cancelled the call');
    expect(withdrawalReason(abortedWith('AbortError: This operation was aborted'))).toBe('the agent cancelled the call');
    expect(withdrawalReason(abortedWith({ message: 'the agent left: but not as text' }))).toBe('the agent cancelled the call');
    expect(withdrawalReason(undefined)).toBe('the agent cancelled the call');
  });

  it('cuts a leaving reason an agent padded out', () => {
    expect(withdrawalReason(abortedWith(agentLeftReason('x'.repeat(10_000)))).length).toBeLessThanOrEqual(200);
  });
});
