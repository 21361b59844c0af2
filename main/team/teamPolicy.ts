import type { PolicyEngine } from '../policy/policyEngine';
import type { TeamLink } from './teamLink';

/** The key of the team's policy in its policy bucket: one JSON policy file, as /etc/toolgate/policy.json is written. */
export const TEAM_POLICY_KEY = 'policy';

/** Where a team rule says it came from, in the place of a file path. */
export function teamPolicySource(link: TeamLink): string {
  return `nats:${link.names.policyBucket}/${TEAM_POLICY_KEY}`;
}

/** Until the team's policy is read, the team layer is refused: its rules can only have made calls stricter or allowed them, so everything asks. */
export function teamPolicyUnread(engine: PolicyEngine, link: TeamLink): Promise<void> {
  return engine.setTeamLayer({ unreadable: 'the team policy has not been read yet (the team server was not reached)', source: teamPolicySource(link) });
}

/**
 * Follows the team's policy layer (again, after each reconnection): read now, then every change.
 * No value means the team set no rules. A read that fails leaves the layer refused: asks, never allows.
 */
export async function followTeamPolicy(engine: PolicyEngine, link: TeamLink, log: (message: string) => void): Promise<{ stop(): unknown }> {
  const source = teamPolicySource(link);
  const kv = await link.bucket(link.names.policyBucket);
  try {
    const current = await kv.get(TEAM_POLICY_KEY);
    await engine.setTeamLayer({ text: current && current.operation === 'PUT' ? current.string() : '{}', source });
  } catch (error) {
    await engine.setTeamLayer({ unreadable: `the team policy could not be read: ${(error as Error).message}`, source });
  }
  const watch = await kv.watch({ key: TEAM_POLICY_KEY });
  void (async () => {
    for await (const entry of watch) {
      await engine.setTeamLayer({ text: entry.operation === 'PUT' ? entry.string() : '{}', source });
    }
  })().catch((error: unknown) => log(`team policy stopped: ${(error as Error).message}`));
  return watch;
}
