import type { BridgeHandlers } from '../../shared/contract';
import { GateError } from '../../shared/errors';
import type { TeamMode } from './teamMode';

/** The team's bridge methods of a console that is in no team: status off, no prompts, answers refused. */
export const NO_TEAM_HANDLERS: Pick<BridgeHandlers, 'teamStatus' | 'listTeamPrompts' | 'decideTeamPrompt'> = {
  teamStatus: async () => ({ state: 'off' }),
  listTeamPrompts: async () => [],
  decideTeamPrompt: async () => {
    throw new GateError('EUNAVAILABLE', 'this gate is in no team: start it with --team nats://HOST:4222 --team-creds FILE');
  },
};

/**
 * A gate console's handlers in team mode: the team's methods answered by the team, and the local
 * answers (one prompt, or all of an agent's) put through the prompt's key first, so they race the
 * team's fairly and only one can win.
 */
export function teamHandlers(local: BridgeHandlers, team: TeamMode): BridgeHandlers {
  const gate = team.gate!;
  const decideApproval: BridgeHandlers['decideApproval'] = (request) => gate.answerLocally(request, () => local.decideApproval(request));
  return {
    ...local,
    decideApproval,
    denyAllFromAgent: async ({ agentSession, reason }) => ({ denied: await gate.denyAllFrom(agentSession, reason) }),
    teamStatus: async () => team.status(),
    listTeamPrompts: async (filter) => team.listPrompts(filter),
    decideTeamPrompt: (request) => team.decide(request, decideApproval),
  };
}

/** The handlers of `toolgate console --team`: a console with no gate of its own, only the team's prompts. */
export function teamOnlyHandlers(team: TeamMode): Pick<BridgeHandlers, 'teamStatus' | 'listTeamPrompts' | 'decideTeamPrompt'> {
  return {
    teamStatus: async () => team.status(),
    listTeamPrompts: async (filter) => team.listPrompts(filter),
    decideTeamPrompt: (request) => team.decide(request, () => Promise.reject(new GateError('EUNAVAILABLE', 'this console has no gate of its own'))),
  };
}
