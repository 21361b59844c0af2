import { AGENT_LEFT, saysAgentLeft } from '../../shared/agentLeft';

// A prompt whose agent is gone can never be answered to it: it is withdrawn at once, saying why,
// rather than left for a person to approve into the void.

/** What a prompt withdrawn because its agent went away says, with how the gate noticed. */
export function agentLeftReason(how: string): string {
  return `${AGENT_LEFT}: ${how}`;
}

/** How long a reason carried on a signal may be before it is cut (an agent can name its own cancel's reason). */
const MAX_REASON_CHARS = 200;

/**
 * Why a call whose signal aborted is withdrawn: the agent left, when the signal says so (a reason
 * from agentLeftReason, as text or as an Error's message: the transports carry either), otherwise
 * that the agent cancelled it. A cancel's reason is the agent's own text: only one that says the
 * agent left is taken, cut to a bound.
 */
export function withdrawalReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  const text = typeof reason === 'string' ? reason : reason instanceof Error ? reason.message : '';
  return saysAgentLeft(text) ? text.slice(0, MAX_REASON_CHARS) : 'the agent cancelled the call';
}
