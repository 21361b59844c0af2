import { z } from 'zod';
import { AgentInfoSchema } from './call';
import { CommandPreviewSchema } from './commandPreview';
import { SecurityTierSchema } from './manifest';
import { ApprovalScopeSchema, RuleSuggestionSchema } from './permissions';
import { TeamDecisionSchema } from './teamDecision';

/** What a privileged call would change, shown to the person before they decide. */
export const PreviewSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('diff'),
    /** Workspace-relative path of the file. */
    path: z.string(),
    /** The file as it is now ('' when it does not exist yet). */
    before: z.string(),
    /** The file as it would be. */
    after: z.string(),
    /** Unified diff of before → after. */
    unified: z.string(),
    /** Whether the file exists now. */
    exists: z.boolean(),
  }),
  z.object({
    kind: z.literal('none'),
    /** Why there is no preview (the tool has no dry run, or the dry run failed). */
    reason: z.string(),
  }),
  z.object({
    kind: z.literal('delete'),
    /** Workspace-relative path the call would delete. */
    path: z.string(),
    /** What would go, deepest last; at most a few thousand are listed. */
    entries: z.array(
      z.object({
        /** Workspace-relative path. */
        path: z.string(),
        /** What it is (a symlink is removed, never followed). */
        type: z.enum(['file', 'directory', 'symlink', 'other']),
        /** Size in bytes (0 for directories and symlinks). */
        bytes: z.number().int().nonnegative(),
        /** A file's content hash (SHA-256, hex), while the hashing budget lasts. */
        sha256: z.string().optional(),
        /** For type other: which special file it is (fifo, socket, character-device, block-device). */
        kind: z.string().optional(),
      }),
    ),
    /** How many entries would go in all, listed or not. */
    totalEntries: z.number().int().nonnegative(),
    /** Bytes of all files that would go. */
    totalBytes: z.number().int().nonnegative(),
    /**
     * BLAKE3 over every entry that would go, listed or not: path, type, size, and a file's SHA-256
     * (past the hashing budget: its inode and change time), so a change after the prompt is refused.
     */
    contentHash: z.string().optional(),
    /** Files past the hashing budget, bound by inode and change time instead of their content. */
    unhashedFiles: z.number().int().nonnegative().optional(),
  }),
  CommandPreviewSchema,
  z.object({
    kind: z.literal('request'),
    /** HTTP method (POST for a search provider that takes its query as a JSON body). */
    method: z.enum(['GET', 'HEAD', 'POST']),
    /** The full URL. */
    url: z.string(),
    /** The host it goes to (the declared domain it matched). */
    host: z.string(),
  }),
  z.object({
    kind: z.literal('note'),
    /** Whether the call would keep this note or delete it. */
    action: z.enum(['store', 'delete']),
    /** The note's id (a delete names the note it removes). */
    id: z.number().int().optional(),
    /** The note's text as it would be kept (secrets already out of it). */
    text: z.string(),
    /** Its tags. */
    tags: z.array(z.string()),
    /** Who wrote it (a delete shows whose note goes). */
    writtenBy: z.string().optional(),
  }),
]);
export type Preview = z.infer<typeof PreviewSchema>;

/** A call waiting for a person's decision. */
export const ApprovalRequestSchema = z.object({
  /** Id the gate issued; the console refers to the prompt only by it. */
  approvalId: z.string(),
  /** The call it belongs to. */
  callId: z.string(),
  /** Tool name. */
  tool: z.string(),
  /** Tool version. */
  toolVersion: z.string(),
  /** The tool's tier. */
  tier: SecurityTierSchema,
  /** The policy rule that asked for a person. */
  rule: z.string(),
  /** The agent's MCP session (an id the gate issued); "Deny all from this agent" denies by it. */
  agentSession: z.string().optional(),
  /** Who the agent session says it is (client name, version, session start). */
  agent: AgentInfoSchema.optional(),
  /** The arguments that will run if approved (long strings and large arrays summarised; the binding hash covers them whole). */
  arguments: z.unknown(),
  /** What the call would change. */
  preview: PreviewSchema,
  /**
   * Names of the secrets the call receives if approved (its `$ENV.NAME` placeholders); absent when
   * none. A call that receives secrets always asks, whatever its tool's tier.
   */
  secrets: z.array(z.string()).optional(),
  /**
   * What the prompt warns of those secrets, when the tool can hand them on in forms no redactor
   * knows: "output can carry it in any form" for a shell command. Absent otherwise.
   */
  secretsWarning: z.string().optional(),
  /**
   * Whether what the call changes can be undone once it ran: "undoable", "undoable except: 2 files
   * over the 50 MB limit", or "not undoable: …" with why. Absent for a call that changes nothing.
   */
  undoable: z.string().optional(),
  /** BLAKE3 of manifest + canonical arguments: the approval holds only for this call. */
  bindingHash: z.string(),
  /**
   * What the person may edit before approving: the arguments (when the gate keeps the call whole),
   * and the new file content with its hunks (write_file and edit_file diffs). Absent: nothing.
   */
  editable: z.object({ arguments: z.boolean(), content: z.boolean() }).optional(),
  /** Rules that would allow this call, narrowest first: what "Approve for this session" and "Always allow" pre-fill. */
  suggestedRules: z.array(RuleSuggestionSchema).optional(),
  /** When it was asked (ISO 8601). */
  requestedAt: z.string(),
  /** When it is denied unless answered (ISO 8601). */
  expiresAt: z.string(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** Largest new content a person may put in the diff's right pane (write_file's own limit). */
export const MAX_EDITED_CONTENT_CHARS = 5 * 1024 * 1024;

/**
 * A person's change to a call before approving it: exactly one of the edited arguments, the new
 * file content typed in the diff's right pane (write_file, edit_file), or the hunks of the shown
 * diff to leave out (the gate computes the content from the file and the accepted hunks).
 */
export const CallEditSchema = z
  .object({
    /** The whole arguments object as edited; fields left as shown keep the call's own values. */
    arguments: z.record(z.string(), z.unknown()).optional(),
    /** The file's new content as edited in the diff's right pane. */
    content: z.string().max(MAX_EDITED_CONTENT_CHARS).optional(),
    /** Numbers (from 1) of the shown diff's hunks to leave out. */
    rejectedHunks: z.array(z.number().int().positive()).min(1).max(10_000).optional(),
  })
  .strict()
  .refine((edit) => [edit.arguments, edit.content, edit.rejectedHunks].filter((part) => part !== undefined).length === 1, {
    message: 'an edit changes the arguments, the new content or the hunks: send exactly one of them',
  });
export type CallEdit = z.infer<typeof CallEditSchema>;

/** A hunk of the shown diff that a person left out, as the agent is told of it. */
export const RejectedHunkSchema = z.object({
  /** Its number in the shown diff, from 1. */
  number: z.number().int().positive(),
  /** The hunk's header, e.g. `@@ -8,7 +8,8 @@`. */
  header: z.string(),
  /** The hunk in words: its number and line ranges. */
  description: z.string(),
});
export type RejectedHunk = z.infer<typeof RejectedHunkSchema>;

/** What an edit changes, in short: shown to the person, recorded, and told to the agent. */
export const EditSummarySchema = z.object({
  /** One line per changed argument, e.g. `content: 3 lines changed (+2 −1)`, `path: "a.md" → "b.md"`. */
  changes: z.array(z.string()),
  /** The hunks left out, when the edit was a choice of hunks. */
  rejectedHunks: z.array(RejectedHunkSchema).optional(),
});
export type EditSummary = z.infer<typeof EditSummarySchema>;

/** The gate's verdict on an edit as it is typed (nothing runs, nothing is decided). */
export const EditCheckSchema = z.object({
  /** What is wrong, by field (`(arguments)` for the whole call); Approve stays disabled while any is listed. */
  problems: z.array(z.object({ field: z.string(), problem: z.string() })),
  /** What the edit changes, when it is valid. */
  summary: EditSummarySchema.optional(),
  /** How the policy judges the edited call (a deny is also listed as a problem). */
  policy: z.object({ decision: z.enum(['allow', 'ask', 'deny']), rule: z.string(), reason: z.string() }).optional(),
});
export type EditCheck = z.infer<typeof EditCheckSchema>;

/** A person's answer to a prompt. */
export const ApprovalDecisionSchema = z.enum(['approve', 'deny']);
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** How a prompt ended. */
export const ApprovalOutcomeSchema = z.object({
  /** The prompt. */
  approvalId: z.string(),
  /** Its call. */
  callId: z.string(),
  /**
   * approved or denied by a person; expired when nobody answered in time; withdrawn when the call
   * went away first (the agent cancelled it, or the gate shut down).
   */
  outcome: z.enum(['approved', 'denied', 'expired', 'withdrawn']),
  /** The reason the person gave, or why it expired. */
  reason: z.string().optional(),
  /** What the person told the agent on deny, verbatim ("Deny and tell the agent…"). */
  tellAgent: z.string().optional(),
  /** For how long an approval holds (absent: this call only). */
  scope: ApprovalScopeSchema.optional(),
  /** The rules a scoped approval granted or wrote, as the person saved them. */
  rules: z.array(z.string()).optional(),
  /** Set when the person edited the call before approving it: what the edit changed. */
  edited: EditSummarySchema.optional(),
  /** In team mode: the signed decision that won the prompt's key, recorded whole (the approver, their key, the signature). */
  teamDecision: TeamDecisionSchema.optional(),
  /** When it was decided (ISO 8601). */
  decidedAt: z.string(),
});
export type ApprovalOutcome = z.infer<typeof ApprovalOutcomeSchema>;
