import { z } from 'zod';

/** Characters a note's text may hold. */
export const MAX_NOTE_CHARS = 16_000;
/** Tags one note may carry. */
export const MAX_NOTE_TAGS = 16;
/** Notes one list or search returns at most. */
export const MAX_NOTES_SHOWN = 50;

/** A tag: one word of letters, digits and `_ . : / -` (tags are matched whole, as words). */
export const NoteTagSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[\p{L}\p{N}_.:/-]+$/u, 'a tag is one word of letters, digits and _ . : / - (no spaces), e.g. "deploy" or "team:backend"');

/** A note as the memory keeps it. */
export const MemoryNoteSchema = z.object({
  /** Its id, never reused. */
  id: z.number().int(),
  /** Its text, secrets replaced by their `$ENV.NAME` placeholders. */
  text: z.string(),
  /** Its tags. */
  tags: z.array(z.string()),
  /** Who wrote it: the agent's client name and version, or `person`. */
  agent: z.string(),
  /** The MCP session it came from, when there was one. */
  agentSession: z.string().optional(),
  /** The gate's id of the call that wrote it (find it in the audit explorer). */
  callId: z.string(),
  /** When it was written (ISO 8601). */
  createdAt: z.string(),
});
export type MemoryNote = z.infer<typeof MemoryNoteSchema>;

/** A note a search found, with how well it matched and where. */
export const MemoryHitSchema = MemoryNoteSchema.extend({
  /** bm25 relevance: higher is better. */
  score: z.number(),
  /** The text around what matched, matches between `**`. */
  snippet: z.string(),
});
export type MemoryHit = z.infer<typeof MemoryHitSchema>;

/** The console's request for notes: a search when a query is given, else the newest. */
export const MemoryQuerySchema = z
  .object({
    /** Words to look for; empty or absent lists the newest notes. */
    query: z.string().max(1000).optional(),
    /** Only notes carrying this tag. */
    tag: NoteTagSchema.optional(),
  })
  .strict();
export type MemoryQuery = z.infer<typeof MemoryQuerySchema>;

/** What the console shows of the memory. */
export const MemoryPageSchema = z.object({
  /** The notes, best match (or newest) first. */
  notes: z.array(MemoryNoteSchema.extend({ score: z.number().optional(), snippet: z.string().optional() })),
  /** How many notes the workspace keeps in all. */
  total: z.number().int().nonnegative(),
});
export type MemoryPage = z.infer<typeof MemoryPageSchema>;
