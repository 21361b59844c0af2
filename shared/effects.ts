import { z } from 'zod';

/** One workspace entry as a snapshot saw it: a file, a symlink or a folder. */
export const EntryStateSchema = z.object({
  /** What it is. */
  type: z.enum(['file', 'symlink', 'dir']),
  /** Its permission bits (e.g. 0o644 as 420). */
  mode: z.number().int().nonnegative(),
  /** Files: BLAKE3 of the content, as 64 hex digits. */
  hash: z.string().optional(),
  /** Files: bytes. */
  size: z.number().int().nonnegative().optional(),
  /** Symlinks: where it points, as written. */
  target: z.string().optional(),
});
export type EntryState = z.infer<typeof EntryStateSchema>;

/** What a call did to one path. */
export const EffectKindSchema = z.enum(['created', 'modified', 'deleted', 'renamed', 'mode-changed', 'type-changed']);
export type EffectKind = z.infer<typeof EffectKindSchema>;

/** How the content before the call is kept in the store, when the effect needs one. */
export const ImageNoteSchema = z.object({
  /** The store's name of the image (BLAKE3 of the bytes stored); absent when it was not stored. */
  image: z.string().optional(),
  /** The content held a secret the redactor knows: the image holds its placeholder instead. */
  redacted: z.boolean().optional(),
  /** Over the per-file size limit: listed, not stored, so the file cannot be put back. */
  tooLarge: z.boolean().optional(),
});
export type ImageNote = z.infer<typeof ImageNoteSchema>;

/** One change a call made in the workspace, with the states before and after it (null: absent). */
export const EffectSchema = z.object({
  /** Workspace-relative path, with /. For a rename, where it went. */
  path: z.string(),
  kind: EffectKindSchema,
  /** For a rename, where it was. */
  from: z.string().optional(),
  before: EntryStateSchema.nullable(),
  after: EntryStateSchema.nullable(),
  /** The before-image (files whose content the call changed or removed). */
  beforeImage: ImageNoteSchema.optional(),
  /** The after-image (files the call wrote), which a redo or a three-way view reads. */
  afterImage: ImageNoteSchema.optional(),
});
export type Effect = z.infer<typeof EffectSchema>;

/** What a call's completed (or failed) record says it changed. */
export const CallEffectsSchema = z.object({
  /** How the changes were found: a scan of the whole workspace, or the exact paths the tool names. */
  method: z.enum(['workspace-scan', 'exact-paths']),
  effects: z.array(EffectSchema),
  /** Changes past the most a record keeps, left out: the call cannot be undone whole. */
  omitted: z.number().int().positive().optional(),
  /** Files over the per-file limit that the call could have changed: listed, not stored. */
  tooLarge: z.array(z.string()).optional(),
  /** Milliseconds spent recording, before and after the call together. */
  recordMs: z.number().nonnegative(),
});
export type CallEffects = z.infer<typeof CallEffectsSchema>;

/** The Live view's count of what a call changed (listed and left out), when it changed anything. */
export function changedPathsOf(effects: CallEffects | undefined): { changedPaths?: number } {
  const changed = (effects?.effects.length ?? 0) + (effects?.omitted ?? 0);
  return changed > 0 ? { changedPaths: changed } : {};
}

/** What undoing does to one path. */
export const PlannedChangeSchema = z.object({
  path: z.string(),
  /** In words: "restore", "delete", "recreate folder", "chmod 644", … */
  action: z.string(),
  /** The state the calls left it in, which it must still be in. */
  expected: EntryStateSchema.nullable(),
  /** The state it is put back to. */
  target: EntryStateSchema.nullable(),
  /** The state it is in now. */
  current: EntryStateSchema.nullable(),
  /** A unified diff from now to the target (text files), or a line saying what changes. */
  diff: z.string(),
  /** The image put back holds placeholders where secrets were. */
  redacted: z.boolean().optional(),
  /** It changed since the call: undo stops unless told to keep it or restore anyway. */
  conflict: z.boolean().optional(),
});
export type PlannedChange = z.infer<typeof PlannedChangeSchema>;

/** Per path, what to do with a conflict: leave the current version, or put the old one back anyway. */
export const ConflictChoiceSchema = z.enum(['keep-current', 'restore-anyway']);

/** A person's request to undo a call, or rewind to before it. */
export const UndoRequestSchema = z
  .object({
    callId: z.string().min(1).max(100),
    /** Undo this call and every later one that touched the same files, newest first. */
    rewind: z.boolean().default(false),
    /** Plan only: show what would be done, change nothing. */
    dryRun: z.boolean().default(false),
    /** Choices for paths in conflict, by path. */
    choices: z.record(z.string(), ConflictChoiceSchema).default({}),
  })
  .strict();
export type UndoRequest = z.infer<typeof UndoRequestSchema>;

/** The outcome of an undo: done, planned (dry run), stopped on conflicts, nothing to do, or impossible. */
export const UndoOutcomeSchema = z.enum(['undone', 'planned', 'conflict', 'nothing', 'not-undoable']);

/** What an undo (or its dry run) says. */
export const UndoReportSchema = z.object({
  outcome: UndoOutcomeSchema,
  /** In plain words. */
  reason: z.string(),
  /** The calls undone, newest first. */
  calls: z.array(z.string()),
  changes: z.array(PlannedChangeSchema),
  /** The undo's own call in the audit (undo it to redo). */
  undoCallId: z.string().optional(),
});
export type UndoReport = z.infer<typeof UndoReportSchema>;
