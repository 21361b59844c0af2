import { z } from 'zod';
import { PolicyLayerSchema, RuleEffectSchema } from './policy';

/** How long a timed grant from a prompt lasts: 15 minutes, an hour, or until the gate stops. */
export const GRANT_DURATIONS = { '15m': 15 * 60_000, '1h': 60 * 60_000, gate: undefined } as const;
export const GrantDurationSchema = z.enum(['15m', '1h', 'gate']);
export type GrantDuration = z.infer<typeof GrantDurationSchema>;

/** The lasting policy files a person may save a rule to from a prompt. */
export const RuleFileSchema = z.enum(['user', 'project']);
export type RuleFile = z.infer<typeof RuleFileSchema>;

/**
 * For how long an approval holds: this call only, this agent session, a while (for every agent),
 * or always (a rule written to the user or project policy file).
 */
export const ApprovalScopeSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('once') }),
  z.strictObject({ kind: z.literal('session') }),
  z.strictObject({ kind: z.literal('timed'), duration: GrantDurationSchema }),
  z.strictObject({ kind: z.literal('always'), file: RuleFileSchema }),
]);
export type ApprovalScope = z.infer<typeof ApprovalScopeSchema>;

/** A rule a prompt suggests: the narrowest first, then broader ones the person may pick. */
export const RuleSuggestionSchema = z.object({
  /** The rule text, e.g. `shell_exec(git status *)`. */
  rule: z.string(),
  /** What it covers, in words: "this exact command", "git status with any arguments". */
  covers: z.string(),
});
export type RuleSuggestion = z.infer<typeof RuleSuggestionSchema>;

/** A past call from the audit that a rule would also have matched. */
export const RuleMatchSchema = z.object({
  /** The call's id. */
  callId: z.string(),
  /** When it was made (ISO 8601). */
  time: z.string(),
  /** Its tool. */
  tool: z.string(),
  /** Its arguments as recorded (long strings summarised). */
  arguments: z.unknown(),
});

/** What the gate says of rules a person typed into a prompt's rule editor. */
export const RuleCheckSchema = z.object({
  /** Why the rules cannot be saved (one line per fault, naming the rule); empty when they can. */
  problems: z.array(z.string()),
  /** Reasons to think twice (interpreters, every call, the whole workspace, environment prefixes). */
  warnings: z.array(z.string()),
  /** Recent audited calls the rules would also have allowed (newest first, at most 20). */
  matches: z.array(RuleMatchSchema),
});
export type RuleCheck = z.infer<typeof RuleCheckSchema>;

/** One rule or grant in force, as the Permissions view lists it. */
export const PermissionSchema = z.object({
  /** An id for revoke (issued by the gate; stable while the rule stays where it is). */
  id: z.string(),
  /** The rule text. */
  rule: z.string(),
  /** What it does. */
  effect: RuleEffectSchema,
  /** Its layer. */
  layer: PolicyLayerSchema,
  /** Where it came from, in words: a file and line, the approval that made it, or a --grant flag. */
  source: z.string(),
  /** The file it is written in (file layers). */
  file: z.string().optional(),
  /** Its line there. */
  line: z.number().int().positive().optional(),
  /** The approval that made it (grants). */
  approvalId: z.string().optional(),
  /** For whom: "every agent", or the agent session (and its client) a session grant holds for. */
  scope: z.string(),
  /** The agent session of a session grant. */
  agentSession: z.string().optional(),
  /** When it ends (ISO 8601); absent: a file rule, or until the gate stops. */
  expiresAt: z.string().optional(),
  /** How many calls it decided since the gate started. */
  hits: z.number().int().nonnegative(),
  /** When it last decided a call (ISO 8601). */
  lastUsed: z.string().optional(),
  /** Whether the console may revoke it (managed rules and --grant flags cannot be). */
  revocable: z.boolean(),
});
export type Permission = z.infer<typeof PermissionSchema>;
