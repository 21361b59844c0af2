import type { TeamMode } from './teamMode';

/** How long the banner waits for the team's server before it says the gate starts offline. */
const BANNER_WAIT_MS = 3_000;

/** The serve banner's line on the team: which, as whom, and whether it is reached (absent when in no team). */
export async function teamBannerLines(team: TeamMode | undefined): Promise<string[]> {
  if (!team) return [];
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([team.whenOnline(), new Promise<void>((resolveLater) => (timer = setTimeout(resolveLater, BANNER_WAIT_MS)))]);
  clearTimeout(timer);
  const status = team.status();
  const role = status.approver ? 'an approver' : 'not an approver: its person answers its own prompts only';
  const reach =
    status.state === 'online'
      ? `connected to ${status.server}`
      : `OFFLINE (${status.server} not reached yet): prompts are answered at this console meanwhile, and what the team must see is queued`;
  return [`  team       ${status.team} as ${status.member} (${role}); ${reach}`];
}
