import { z } from 'zod';
import { AuditRecordSchema } from './audit';
import { SECURITY_TIERS } from './manifest';

/** How a call ended, or `open` while it has no closing record. */
export const CallOutcomeSchema = z.enum(['completed', 'failed', 'rejected', 'interrupted', 'open']);
export type CallOutcome = z.infer<typeof CallOutcomeSchema>;

/** Who decided whether a call ran: a written rule, a tier default, the mode, a person, nobody in time, or the agent withdrawing it. */
export const DeciderSchema = z.enum(['rule', 'default', 'mode', 'policy', 'person', 'timeout', 'withdrawn']);
export type Decider = z.infer<typeof DeciderSchema>;

/** The explorer's facets: the fields a person filters by, with a count for each value. */
export const FACETS = ['tool', 'outcome', 'decider', 'session', 'tier'] as const;
export type Facet = (typeof FACETS)[number];

/** The shortest text the full-text search takes (its trigram index matches three characters or more). */
export const MIN_SEARCH_CHARS = 3;

/**
 * What the explorer shows: the filters of one view. The same filters serve the console (kept in
 * its URL), `toolgate audit export` and the bench. Values within one facet are OR-ed, facets AND-ed.
 */
export const ExplorerFilterSchema = z
  .object({
    tool: z.array(z.string().max(200)).max(50).optional(),
    outcome: z.array(CallOutcomeSchema).max(5).optional(),
    decider: z.array(DeciderSchema).max(7).optional(),
    /** Agent sessions (the MCP session id the gate gave the agent). */
    session: z.array(z.string().max(200)).max(50).optional(),
    /** Security tiers, as the gate judged the call (SAFE … DANGEROUS). */
    tier: z.array(z.string().max(20)).max(SECURITY_TIERS.length).optional(),
    /** Calls invoked at or after this time (ISO 8601). */
    from: z.string().max(40).optional(),
    /** Calls invoked before this time (ISO 8601). */
    to: z.string().max(40).optional(),
    /** Substring searched in arguments, outputs, reasons, error messages and paths (literal, case-insensitive, 3 characters or more). */
    text: z.string().max(500).optional(),
    /** One call (its id). */
    callId: z.string().max(100).optional(),
  })
  .strict();
export type ExplorerFilter = z.infer<typeof ExplorerFilterSchema>;

/** One row of the explorer: a call, summed up from its records. */
export const CallRowSchema = z.object({
  callId: z.string(),
  /** The seq of its first record: its place in the log and the keyset paging key. */
  seq: z.number().int().positive(),
  /** The seq of its newest record. */
  lastSeq: z.number().int().positive(),
  /** When it was invoked (ISO 8601). */
  time: z.string(),
  tool: z.string(),
  /** The agent's name as it gave it (cleaned), if it gave one. */
  agent: z.string().optional(),
  /** The agent session (MCP session id), if the call came over MCP. */
  session: z.string().optional(),
  /** Where it came from (mcp, console, cli, test). */
  source: z.string().optional(),
  tier: z.string().optional(),
  /** Its arguments in brief (one line, at most 200 characters, secrets already out). */
  argsBrief: z.string(),
  /** What the policy said: allow, ask or deny. */
  decision: z.enum(['allow', 'ask', 'deny']).optional(),
  /** Who decided, and which rule or answer. */
  decider: DeciderSchema.optional(),
  decidedDetail: z.string().optional(),
  /** The rule that decided, e.g. `tier:ELEVATED→ask` or `shell_exec(git push *)`. */
  rule: z.string().optional(),
  outcome: CallOutcomeSchema,
  /** The error code of a failed or refused call. */
  errorCode: z.string().optional(),
  /** How long it waited for a person, in milliseconds. */
  waitedMs: z.number().optional(),
  /** How long its tool ran, in milliseconds. */
  ranMs: z.number().optional(),
  /** From invoked to its end, in milliseconds. */
  durationMs: z.number().optional(),
});
export type CallRow = z.infer<typeof CallRowSchema>;

/** Where a page ends: the next page starts below this seq. */
export const ExplorerCursorSchema = z.object({ beforeSeq: z.number().int().positive() }).strict();

export const ExplorerPageRequestSchema = z
  .object({
    filter: ExplorerFilterSchema.default({}),
    /** Rows per page. */
    limit: z.number().int().min(1).max(500).default(100),
    /** Absent: the newest page. */
    cursor: ExplorerCursorSchema.optional(),
    /** Also count the facets (the first page of a view asks; later pages need not). */
    facets: z.boolean().default(false),
  })
  .strict();
export type ExplorerPageRequest = z.input<typeof ExplorerPageRequestSchema>;

/** A facet's values with the number of calls each has under the other facets' filters. */
export const FacetCountsSchema = z.record(z.string(), z.array(z.object({ value: z.string(), count: z.number().int().nonnegative() })));
export type FacetCounts = z.infer<typeof FacetCountsSchema>;

export const ExplorerPageSchema = z.object({
  rows: z.array(CallRowSchema),
  /** Present when there are older rows. */
  next: ExplorerCursorSchema.optional(),
  /** How many calls match the filter (counted on the first page). */
  total: z.number().int().nonnegative().optional(),
  facets: FacetCountsSchema.optional(),
  /** Said when the filter was taken differently than typed (e.g. a regex-looking search is searched literally). */
  notice: z.string().optional(),
  /** How long the query took, in milliseconds. */
  tookMs: z.number(),
});
export type ExplorerPage = z.infer<typeof ExplorerPageSchema>;

/** One call whole, for the detail pane: its row, every record, and where they sit in the log. */
export const CallDetailSchema = z.object({
  row: CallRowSchema,
  /** Its records, oldest first; a payload over the shown limit is replaced by its size, hash and head. */
  records: z.array(AuditRecordSchema),
  /** How many records the log holds (each record's position is its seq of this). */
  logSize: z.number().int().nonnegative(),
  /** Whether replay can re-run it, and if not, why. */
  replay: z.object({ possible: z.boolean(), reason: z.string() }),
});
export type CallDetail = z.infer<typeof CallDetailSchema>;

/** The shape of the day: the small charts over the filtered calls. */
export const ExplorerStatsSchema = z.object({
  /** Calls per time bucket by outcome. */
  overTime: z.object({
    bucketMs: z.number().int().positive(),
    buckets: z.array(z.object({ start: z.string(), counts: z.record(z.string(), z.number().int().nonnegative()) })),
  }),
  /** Approval wait times: counts per bucket (upper bound in milliseconds). */
  waits: z.array(z.object({ upToMs: z.number(), count: z.number().int().nonnegative() })),
  topTools: z.array(z.object({ tool: z.string(), count: z.number().int().nonnegative() })),
  /** Refused calls by the rule that refused them (policy denials) or the person (denied prompts). */
  denialsByRule: z.array(z.object({ rule: z.string(), count: z.number().int().nonnegative() })),
  /** Agent sessions, newest first: their calls' span and counts. */
  sessions: z.array(
    z.object({
      session: z.string(),
      agent: z.string().optional(),
      first: z.string(),
      last: z.string(),
      calls: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
      denied: z.number().int().nonnegative(),
    }),
  ),
  tookMs: z.number(),
});
export type ExplorerStats = z.infer<typeof ExplorerStatsSchema>;

/** The formats `audit export` writes: one JSON object per call per line, or OTLP JSON spans. */
export const ExportFormatSchema = z.enum(['jsonl', 'otlp']);
export type ExportFormat = z.infer<typeof ExportFormatSchema>;

/** The most calls the console exports at once (the CLI exports any number). */
export const CONSOLE_EXPORT_CALLS = 10_000;

export const ExportRequestSchema = z
  .object({
    filter: ExplorerFilterSchema.default({}),
    format: ExportFormatSchema,
    /** Include arguments and outputs (off: only what the call was, how it was decided and ended, and hashes). */
    content: z.boolean().default(false),
  })
  .strict();

export const ExportResultSchema = z.object({
  /** The file's text. */
  text: z.string(),
  /** A file name to save it as. */
  fileName: z.string(),
  /** How many calls it holds. */
  calls: z.number().int().nonnegative(),
  /** Set when more calls matched than the console exports at once. */
  cut: z.boolean().optional(),
});
export type ExportResult = z.infer<typeof ExportResultSchema>;

/** What re-running a recorded call found. */
export const ReplayReportSchema = z.object({
  callId: z.string(),
  /** `same`: the response hash matches; `different`: it does not; `not-replayable`: it was not re-run (the reason says why). */
  verdict: z.enum(['same', 'different', 'not-replayable']),
  /** In plain words: what was compared, or why it could not be. */
  reason: z.string(),
  recordedHash: z.string().optional(),
  replayedHash: z.string().optional(),
  /** The replay's own call id (it is audited as a call of its own, its invoked record naming `replayOf`). */
  replayCallId: z.string().optional(),
  /** The tool version the call ran with, and the one installed now. */
  recordedVersion: z.string().optional(),
  currentVersion: z.string().optional(),
});
export type ReplayReport = z.infer<typeof ReplayReportSchema>;

/** The newest signed checkpoint, as the console shows it. */
export const CheckpointStatusSchema = z.object({
  /** The signed-note verifier key (`name+hash+key`) of the gate's checkpoint key, when it has one. */
  verifierKey: z.string().optional(),
  /** The folder checkpoints are written to; absent when the person chose none. */
  folder: z.string().optional(),
  latest: z
    .object({
      file: z.string(),
      /** How many records the checkpoint commits to. */
      size: z.number().int().nonnegative(),
      /** Its Merkle root, base64. */
      rootHash: z.string(),
      writtenAt: z.string(),
      /** Whether its signature and a consistency proof to the log as it is now both hold. */
      verified: z.boolean(),
      /** What was checked, or what failed. */
      detail: z.string(),
    })
    .optional(),
  /** Why there is none, or what is wrong (e.g. the folder is inside the state folder). */
  problem: z.string().optional(),
});
export type CheckpointStatus = z.infer<typeof CheckpointStatusSchema>;
