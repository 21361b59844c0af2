import type { ApprovalRequest } from './approval';

/**
 * The title and body of a prompt's notification, in the browser and on the desktop alike: the tool
 * and the agent that asks, never the arguments (a notification shows on a locked screen and in the
 * system's history, where a path or a command does not belong).
 */
export function promptNotice(request: Pick<ApprovalRequest, 'tool' | 'agent' | 'agentSession'>): { title: string; body: string } {
  const agent = request.agent
    ? `${request.agent.client} ${request.agent.version}`
    : request.agentSession
      ? `agent session ${request.agentSession.slice(0, 8)}`
      : 'a local caller';
  return { title: `${request.tool} is waiting for your approval`, body: `Asked by ${agent}. Click to open the prompt.` };
}
