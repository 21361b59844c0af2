import { flag, UsageError, type ParsedArgs } from '../cli/argv';
import type { Io } from '../cli/commands';
import { readSettingsFile, settingsPath } from '../settings/settings';
import { inertText } from '../../shared/inertText';
import type { TeamPrompt, TeamPromptFilter } from '../../shared/team';
import { loadTeamCredentials } from './teamCredentials';
import { TeamMode } from './teamMode';

/** How long the console waits for the team's prompts to arrive before it lists them. */
const SETTLE_MS = 1_000;

/** One line of a team prompt: where it comes from, who asks, what, and the id to answer it by. */
function promptLine(prompt: TeamPrompt): string {
  const { request } = prompt;
  const what = request.preview.kind === 'command' ? request.preview.command : request.preview.kind === 'diff' || request.preview.kind === 'delete' ? request.preview.path : request.preview.kind === 'request' ? request.preview.url : JSON.stringify(request.arguments);
  const state = prompt.state === 'waiting' ? 'waiting' : prompt.decision ? `${prompt.decision.decision === 'approve' ? 'approved' : 'denied'} by ${prompt.decision.approver}` : (prompt.ended?.outcome ?? prompt.state);
  return inertText(`${prompt.gate}/${request.approvalId}  ${state}  ${prompt.machine}:${prompt.workspace}  ${request.agent?.client ?? 'no agent name'}  ${request.tool} (${request.tier}, ${request.rule})  ${what.slice(0, 120)}`);
}

/**
 * `toolgate console --team`: a team console with no gate of its own. Lists the team's prompts
 * (filtered by gate, machine, workspace or agent), or answers one with --approve or --deny
 * GATE/APPROVAL_ID as this member (an approver), saying who won when another answer came first.
 */
export async function teamConsoleCommand(args: ParsedArgs, io: Io): Promise<number> {
  const file = settingsPath(io.home);
  const settings = readSettingsFile(file);
  const url = settings.team;
  const credentialsFile = flag(args, 'team-creds') ?? settings.teamCreds;
  if (!url || !credentialsFile) throw new UsageError(`console --team reads the team from ${file}: add "team" (its NATS server) and "teamCreds" (your credentials file), or pass --team-creds FILE`);
  const filter: TeamPromptFilter = {
    ...(flag(args, 'gate') ? { gate: flag(args, 'gate')! } : {}),
    ...(flag(args, 'machine') ? { machine: flag(args, 'machine')! } : {}),
    ...(flag(args, 'workspace') ? { workspace: flag(args, 'workspace')! } : {}),
    ...(flag(args, 'agent') ? { agent: flag(args, 'agent')! } : {}),
  };
  const approve = flag(args, 'approve');
  const deny = flag(args, 'deny');
  if (approve && deny) throw new UsageError('give --approve or --deny, not both');
  const team = new TeamMode({ url, credentials: loadTeamCredentials(credentialsFile), log: (message) => io.err(`toolgate team: ${message}\n`) }).start();
  try {
    await Promise.race([team.whenOnline(), new Promise((_, reject) => setTimeout(() => reject(new UsageError(`cannot reach the team server ${url}`)), 10_000).unref())]);
    await new Promise((resolveSoon) => setTimeout(resolveSoon, SETTLE_MS));
    const target = approve ?? deny;
    if (!target) {
      const prompts = team.listPrompts(filter);
      if (prompts.length === 0) io.err('no team prompts match\n');
      for (const prompt of prompts) io.out(`${promptLine(prompt)}\n`);
      return 0;
    }
    const [gate, approvalId] = target.split('/');
    const prompt = team.listPrompts({ gate: gate ?? '' }).find((candidate) => candidate.request.approvalId === approvalId);
    if (!gate || !approvalId || !prompt) throw new UsageError(`${target}: no such team prompt; list them with toolgate console --team`);
    const reason = flag(args, 'reason');
    const result = await team.decide(
      { gate, approvalId, bindingHash: prompt.request.bindingHash, decision: approve ? 'approve' : 'deny', ...(reason ? { reason } : {}) },
      () => Promise.reject(new UsageError('this console has no gate of its own')),
    );
    const how = (decision: 'approve' | 'deny') => (decision === 'approve' ? 'approved' : 'denied');
    if (result.won) {
      io.out(`${how(result.decision.decision)} ${target}\n`);
      return 0;
    }
    io.err(`${result.decision.approver} (${result.decision.by}) already ${how(result.decision.decision)} ${target}${result.decision.reason ? `: ${result.decision.reason}` : ''}\n`);
    return 3;
  } finally {
    await team.close();
  }
}
