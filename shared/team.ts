import { z } from 'zod';
import { ApprovalOutcomeSchema, ApprovalRequestSchema } from './approval';
import { TeamDecisionSchema } from './teamDecision';

/** Largest prompt message a gate publishes or a console reads (bytes of JSON); a larger card is trimmed first. */
export const MAX_TEAM_PROMPT_BYTES = 128 * 1024;
/** Largest message on how a prompt ended. */
export const MAX_TEAM_ENDED_BYTES = 4 * 1024;

/** Where a team prompt comes from: what a team console names and filters by. */
export const TeamOriginSchema = z.object({
  /** The gate (its member name in the team). */
  gate: z.string().max(32),
  /** The machine's host name. */
  machine: z.string().max(255),
  /** The gate's workspace folder. */
  workspace: z.string().max(4096),
});
export type TeamOrigin = z.infer<typeof TeamOriginSchema>;

/** A prompt as a gate publishes it: the card its own console gets (secrets already redacted), and where it comes from. */
export const TeamPromptMessageSchema = TeamOriginSchema.extend({
  request: ApprovalRequestSchema,
  /** When it was published (ISO 8601); a prompt raised offline is published when the gate is back. */
  publishedAt: z.string().max(40),
}).strict();
export type TeamPromptMessage = z.infer<typeof TeamPromptMessageSchema>;

/** How a prompt ended, as its gate tells the team (so consoles drop it, and say how). */
export const TeamEndedMessageSchema = z
  .object({
    gate: z.string().max(32),
    approvalId: z.string().max(100),
    outcome: ApprovalOutcomeSchema.shape.outcome,
    reason: z.string().max(2000).optional(),
    endedAt: z.string().max(40),
  })
  .strict();
export type TeamEndedMessage = z.infer<typeof TeamEndedMessageSchema>;

/** A team prompt as a team console shows it. */
export const TeamPromptSchema = TeamOriginSchema.extend({
  request: ApprovalRequestSchema,
  /** waiting: nobody has answered; decided: the team's first decision; ended: its gate says how it ended. */
  state: z.enum(['waiting', 'decided', 'ended']),
  /** The decision that won, when one did. */
  decision: TeamDecisionSchema.optional(),
  /** How it ended at its gate. */
  ended: TeamEndedMessageSchema.pick({ outcome: true, reason: true, endedAt: true }).optional(),
});
export type TeamPrompt = z.infer<typeof TeamPromptSchema>;

/** Which team prompts to list: each field given must match exactly; all absent: every one. */
export const TeamPromptFilterSchema = z
  .object({
    gate: z.string().max(32).optional(),
    machine: z.string().max(255).optional(),
    workspace: z.string().max(4096).optional(),
    /** The agent's client name. */
    agent: z.string().max(64).optional(),
    /** Only prompts still waiting (default false: the recent ones too). */
    waitingOnly: z.boolean().optional(),
  })
  .strict();
export type TeamPromptFilter = z.infer<typeof TeamPromptFilterSchema>;

/** Whether this gate is in a team and reaches it. */
export const TeamStatusSchema = z.object({
  /** off: no team; online: connected; offline: the server cannot be reached (local console only, publishing queued). */
  state: z.enum(['off', 'online', 'offline']),
  team: z.string().optional(),
  member: z.string().optional(),
  server: z.string().optional(),
  /** Whether this member's answers count for other gates' prompts. */
  approver: z.boolean().optional(),
  /** Messages waiting to be published when the server is back. */
  queued: z.number().int().nonnegative().optional(),
  /** Why it is offline. */
  reason: z.string().optional(),
});
export type TeamStatus = z.infer<typeof TeamStatusSchema>;

/** A team console's answer to a team prompt. */
export const TeamDecideRequestSchema = z
  .object({
    gate: z.string().min(1).max(32),
    approvalId: z.string().min(1).max(100),
    /** The call the person was shown: refused if the prompt binds another. */
    bindingHash: z.string().min(1).max(200),
    decision: z.enum(['approve', 'deny']),
    reason: z.string().max(2000).optional(),
    tellAgent: z.string().max(4000).optional(),
  })
  .strict();
export type TeamDecideRequest = z.infer<typeof TeamDecideRequestSchema>;

/** What a team console's answer did: won, or lost to the decision shown. */
export const TeamDecideResultSchema = z.object({
  won: z.boolean(),
  /** The decision in force: this one when it won, the first one when it lost. */
  decision: TeamDecisionSchema,
});
export type TeamDecideResult = z.infer<typeof TeamDecideResultSchema>;
