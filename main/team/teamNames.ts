import { z } from 'zod';

/**
 * A team's or member's name: one NATS subject token, also usable in stream and bucket names, so no
 * dot, wildcard, space or `$`. Lower case keeps `Alice` and `alice` from being two members.
 */
export const TeamNameSchema = z
  .string()
  .regex(/^[a-z0-9][a-z0-9_-]{0,31}$/, 'is 1 to 32 lower-case letters, digits, "-" or "_", starting with a letter or digit, e.g. "acme" or "laptop-alice"');

/** Every subject, stream and bucket of one team, and the ones one member may publish to. */
export interface TeamNames {
  /** Stream of the prompts gates raise and how they ended. */
  promptsStream: string;
  /** Stream of the gates' signed audit checkpoints (no deletes, no purges). */
  checkpointsStream: string;
  /** Key-value bucket of decisions, one key per prompt: `<gate>.<approvalId>`. */
  decisionsBucket: string;
  /** Key-value bucket of the team's policy layer. */
  policyBucket: string;
  /** Subject a gate publishes its prompts on. */
  prompts(gate: string): string;
  /** Subject a gate says on how its prompts ended. */
  ended(gate: string): string;
  /** Subject a gate publishes its checkpoints on. */
  checkpoints(gate: string): string;
  /** The decision key of a prompt. */
  decisionKey(gate: string, approvalId: string): string;
  /** The KV subject of a decision key (what publish permissions name). */
  decisionSubject(key: string): string;
  /** The inbox prefix of one member: replies to it go nowhere else. */
  inbox(member: string): string;
}

/** The names of a team's subjects, streams and buckets. */
export function teamNames(team: string): TeamNames {
  const root = `toolgate.${team}`;
  const decisionsBucket = `toolgate_${team}_decisions`;
  return {
    promptsStream: `TOOLGATE_${team}_PROMPTS`,
    checkpointsStream: `TOOLGATE_${team}_CHECKPOINTS`,
    decisionsBucket,
    policyBucket: `toolgate_${team}_policy`,
    prompts: (gate) => `${root}.prompts.${gate}`,
    ended: (gate) => `${root}.ended.${gate}`,
    checkpoints: (gate) => `${root}.checkpoints.${gate}`,
    decisionKey: (gate, approvalId) => `${gate}.${approvalId}`,
    decisionSubject: (key) => `$KV.${decisionsBucket}.${key}`,
    inbox: (member) => `_INBOX_${team}_${member}`,
  };
}
