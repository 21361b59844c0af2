import { z } from 'zod';

/** Largest decision value a gate reads from the team's bucket (bytes of JSON): a decision is a few hundred. */
export const MAX_TEAM_DECISION_BYTES = 8 * 1024;

/**
 * A decision on a team prompt: the value written once, compare-and-set, at the prompt's key. The
 * signature is Ed25519 over the canonical JSON (RFC 8785) of every other field, by the key named;
 * the owning gate follows it only when that key is one of the team's approvers (or its own, for its
 * own console's answers), and records it whole in the audit.
 */
export const TeamDecisionSchema = z
  .object({
    /** The gate whose prompt it answers. */
    gate: z.string().max(32),
    /** The prompt (the owning gate's approval id). */
    approvalId: z.string().max(100),
    /** The call the approver was shown: a decision binds that call only. */
    bindingHash: z.string().max(200),
    /** Approve or deny. */
    decision: z.enum(['approve', 'deny']),
    /** Why (shown to the agent on deny). */
    reason: z.string().max(2000).optional(),
    /** On deny: what to tell the agent, verbatim. */
    tellAgent: z.string().max(4000).optional(),
    /** The member whose console answered (its NATS user). */
    by: z.string().max(32),
    /** The approver's name in the team's list, or `console of <gate>` for a gate's own console. */
    approver: z.string().max(100),
    /** The signing key, raw Ed25519 public key in base64url. */
    publicKey: z.string().max(64),
    /** When it was decided (ISO 8601). */
    decidedAt: z.string().max(40),
    /** Ed25519 signature, base64url. */
    signature: z.string().max(200),
  })
  .strict();
export type TeamDecision = z.infer<typeof TeamDecisionSchema>;
