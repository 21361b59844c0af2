/**
 * Why a prompt is taken back when the agent that asked is gone: its connection or stream to the
 * gate closed, it ended its session, or its stdio bridge went away. Such a call can never be
 * answered, so it is withdrawn at once rather than left for a person to approve into the void.
 */
export const AGENT_LEFT = 'the agent left';

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
  return text.startsWith(AGENT_LEFT) ? text.slice(0, MAX_REASON_CHARS) : 'the agent cancelled the call';
}
