/**
 * How the reason of a prompt withdrawn because its agent went away begins: its connection or
 * stream to the gate closed, it ended its session, or its stdio bridge went away.
 */
export const AGENT_LEFT = 'the agent left';

/** Whether a prompt's outcome reason says its agent left (rather than cancelling the call). */
export function saysAgentLeft(reason: string | undefined): boolean {
  return reason?.startsWith(AGENT_LEFT) ?? false;
}
