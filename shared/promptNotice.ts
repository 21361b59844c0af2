import { AGENT_NAME_MAX_CHARS, AGENT_VERSION_MAX_CHARS, agentLabel, cleanAgentText } from './agentName';
import type { ApprovalRequest } from './approval';

/**
 * The title and body of a prompt's notification, in the browser and on the desktop alike: a fixed
 * template naming the tool and the agent that asks, never the arguments (a notification shows on a
 * locked screen and in the system's history, where a path or a command does not belong). The agent's
 * names are cleaned again here, whoever built the request, so a notification is never a channel for
 * an agent's own lines of text.
 */
export function promptNotice(request: Pick<ApprovalRequest, 'tool' | 'agent' | 'agentSession'>): { title: string; body: string } {
  const agent = request.agent
    ? agentLabel({
        client: cleanAgentText(request.agent.client, AGENT_NAME_MAX_CHARS),
        version: cleanAgentText(request.agent.version, AGENT_VERSION_MAX_CHARS),
        ...(request.agent.via
          ? { via: { client: cleanAgentText(request.agent.via.client, AGENT_NAME_MAX_CHARS), version: cleanAgentText(request.agent.via.version, AGENT_VERSION_MAX_CHARS) } }
          : {}),
      })
    : request.agentSession
      ? `agent session ${request.agentSession.slice(0, 8)}`
      : 'a local caller';
  return { title: `${request.tool} is waiting for your approval`, body: `Asked by ${agent}. Click to open the prompt.` };
}
