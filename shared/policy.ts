import { z } from 'zod';

/** How strictly the gate treats calls no rule decides: strict asks above SAFE, permissive lets ELEVATED work in the workspace run. */
export const PolicyModeSchema = z.enum(['strict', 'standard', 'permissive']);
export type PolicyMode = z.infer<typeof PolicyModeSchema>;

/** Where a rule comes from, tightest first: managed, user, project, session (grants from prompts), the gate's flags. */
export const PolicyLayerSchema = z.enum(['managed', 'team', 'user', 'project', 'session', 'flag']);
export type PolicyLayer = z.infer<typeof PolicyLayerSchema>;

/** What a rule does with a call it matches; also the order a file's lists are read in. */
export const RULE_EFFECTS = ['allow', 'ask', 'deny'] as const;
export const RuleEffectSchema = z.enum(RULE_EFFECTS);
export type RuleEffect = z.infer<typeof RuleEffectSchema>;

/** Calls a rule must match and must not match, checked when its file loads. */
export const RuleExamplesSchema = z.strictObject({
  /** Arguments objects (or, for shell rules, command lines; for path rules, paths; for host rules, URLs) the rule matches. */
  match: z.array(z.unknown()).optional(),
  /** Ones it must not match. */
  notMatch: z.array(z.unknown()).optional(),
});

/** One entry of a policy list: the rule text alone, or with a reason and examples. */
export const PolicyEntrySchema = z.union([
  z.string(),
  z.strictObject({
    /** `Tool` or `Tool(specifier)`, e.g. `shell_exec(git push *)`. */
    rule: z.string(),
    /** Why, shown on prompts and in denials. */
    reason: z.string().optional(),
    /** Calls it must and must not match. */
    examples: RuleExamplesSchema.optional(),
  }),
]);
export type PolicyEntry = z.infer<typeof PolicyEntrySchema>;

/** A policy file: `allow`, `ask` and `deny` lists; any may be absent. */
export const PolicyFileSchema = z.strictObject({
  /** Rules whose calls run without asking. */
  allow: z.array(PolicyEntrySchema).optional(),
  /** Rules whose calls always ask a person. */
  ask: z.array(PolicyEntrySchema).optional(),
  /** Rules whose calls are refused. */
  deny: z.array(PolicyEntrySchema).optional(),
});
export type PolicyFile = z.infer<typeof PolicyFileSchema>;

/** Where a rule was written: its layer, and its file and line or the grant that made it. */
export const RuleSourceSchema = z.object({
  /** The layer it belongs to. */
  layer: PolicyLayerSchema,
  /** The policy file (absent for session grants and flags). */
  file: z.string().optional(),
  /** Its 1-based line in that file. */
  line: z.number().int().positive().optional(),
  /** The approval that granted it (session grants). */
  approvalId: z.string().optional(),
  /** The agent session a grant holds for (absent: every agent); "Approve for this session" sets it. */
  agentSession: z.string().optional(),
  /** When a timed grant ends (ISO 8601); absent: until the gate stops. */
  expiresAt: z.string().optional(),
});
export type RuleSource = z.infer<typeof RuleSourceSchema>;

/** Who or what decided a call at the policy step, and on what part of it. */
export const PolicyProvenanceSchema = z.object({
  /** The rule text as written, e.g. `shell_exec(git push *)`. */
  rule: z.string(),
  /** What the rule does. */
  effect: RuleEffectSchema,
  /** Where it was written. */
  source: RuleSourceSchema,
  /** The rule's own reason, if it gives one. */
  reason: z.string().optional(),
  /** The part of the call it matched: a sub-command, a path, a host. */
  matched: z.string().optional(),
});
export type PolicyProvenance = z.infer<typeof PolicyProvenanceSchema>;

/** A policy file refused whole, for the console banner: the file, the line and the fix. */
export const PolicyProblemSchema = z.object({
  /** The layer of the file. */
  layer: PolicyLayerSchema,
  /** The file. */
  file: z.string(),
  /** The 1-based line of the fault, when known. */
  line: z.number().int().positive().optional(),
  /** The 1-based column of the fault on that line, when known. */
  column: z.number().int().positive().optional(),
  /** What is wrong. */
  problem: z.string(),
  /** How to fix it. */
  fix: z.string(),
});
export type PolicyProblem = z.infer<typeof PolicyProblemSchema>;

/** The policy in force, as the console header and banner show it. */
export const PolicyStatusSchema = z.object({
  /** The security mode. */
  mode: PolicyModeSchema,
  /** Files refused whole: every call they could have allowed asks instead. */
  problems: z.array(PolicyProblemSchema),
  /** Facts worth a line, e.g. an untrusted project file that is ignored. */
  notices: z.array(z.string()),
});
export type PolicyStatus = z.infer<typeof PolicyStatusSchema>;

/** How a problem reads in one line: `file line N: problem. Fix: fix`. */
export function describePolicyProblem(problem: PolicyProblem): string {
  return `${problem.file}${problem.line ? ` line ${problem.line}${problem.column ? `, column ${problem.column}` : ''}` : ''}: ${problem.problem}. Fix: ${problem.fix}`;
}
