/**
 * Gates and consoles of a test team: a gate started by the integration helpers with `--team` and
 * its member's credentials, and a team console with no gate of its own (`toolgate console --team`).
 */
import { WAIT_MS } from '../fixtures/processes';
import { startTestGate, type TestGate } from '../integration/helpers';
import { loadTeamCredentials } from '../../main/team/teamCredentials';
import { TeamMode } from '../../main/team/teamMode';
import type { TeamPrompt } from '../../shared/team';
import type { TestNatsServer } from './natsServer';

/** Messages the team code logged, per member, so a spec can assert what was dropped. */
export const teamLogs = new Map<string, string[]>();

function logFor(member: string): (message: string) => void {
  const lines = teamLogs.get(member) ?? [];
  teamLogs.set(member, lines);
  return (message) => lines.push(message);
}

/**
 * A gate joined to the test team as `member`, once it is online. Its prompts wait as long as a test
 * waits for anything: each is answered across the team's server, after several round trips.
 */
export async function startTeamGate(server: TestNatsServer, member: string, options: { approvalTimeoutMs?: number; wait?: boolean } = {}): Promise<TestGate> {
  const gate = await startTestGate({
    approvalTimeoutMs: options.approvalTimeoutMs ?? WAIT_MS,
    team: { url: server.url, credentials: loadTeamCredentials(server.members.get(member)!.file), log: logFor(member) },
  });
  if (options.wait !== false) await gate.running.gate.team!.whenOnline();
  return gate;
}

/** A team console with no gate (what `toolgate console --team` runs), once it is online. */
export async function startTeamConsole(server: TestNatsServer, member: string): Promise<TeamMode> {
  const team = new TeamMode({ url: server.url, credentials: loadTeamCredentials(server.members.get(member)!.file), log: logFor(member) }).start();
  await team.whenOnline();
  return team;
}

/** Resolves with the first team prompt the list shows that matches, as it changes. */
export function teamPromptWhere(list: () => Promise<TeamPrompt[]> | TeamPrompt[], onChange: (wake: () => void) => () => void, matches: (prompt: TeamPrompt) => boolean): Promise<TeamPrompt> {
  return new Promise((resolvePrompt, reject) => {
    let done = false;
    const check = async () => {
      if (done) return;
      const found = (await list()).find(matches);
      if (found && !done) {
        done = true;
        stop();
        clearTimeout(timer);
        resolvePrompt(found);
      }
    };
    const stop = onChange(() => void check());
    const timer = setTimeout(() => {
      done = true;
      stop();
      reject(new Error(`no such team prompt in ${WAIT_MS / 1000} s`));
    }, WAIT_MS);
    void check();
  });
}
