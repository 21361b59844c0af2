import { z } from 'zod';
import type { Preview } from '../../../shared/approval';
import type { AgentInfo } from '../../../shared/call';
import { GateError } from '../../../shared/errors';
import { MAX_NOTE_CHARS, MAX_NOTE_TAGS, MAX_NOTES_SHOWN, MemoryHitSchema, MemoryNoteSchema, NoteTagSchema } from '../../../shared/memory';
import { defineTool } from '../../registry/defineTool';
import { resultFindings } from '../../upstream/resultFindings';
import { servedByGate, type GateServedTool } from '../gateServed';
import type { NoteStore } from './noteStore';

/**
 * The memory tools: notes with tags an agent keeps for itself and for the agents after it, per
 * workspace. Where the notes live, and why: in the state folder (`memory/<hash of the workspace>/
 * notes.db`), opened by the gate alone. A tool process never sees the state folder (its sandbox
 * hides it, with the audit log and the secrets), and binding a folder of it into one would give
 * every tool sharing that process's profile the notes, so these tools are served by the gate like
 * an upstream server's (gateServed.ts): the agent's text is data bound into SQL parameters, never a
 * path, so no call can reach another workspace's notes or the audit log. A secret the gate knows is
 * replaced by its placeholder before a note is stored or shown in a prompt. Notes read back are
 * scanned like an upstream result: another agent's note can hold orders aimed at the model.
 */

/** What the memory tools are served with. */
export interface MemoryDeps {
  /** This workspace's notes. */
  store: NoteStore;
  /** Replaces every secret the gate knows with its placeholder (the gate's redactor). */
  redact<T>(value: T): T;
}

/** Output a note's tools may return: one note of MAX_NOTE_CHARS at four bytes a character, with its facts. */
const ONE_NOTE_BYTES = 128 * 1024;
/** Output a search or list may return before it is cut: room for many whole notes; ask for fewer to see each whole. */
const NOTES_BYTES = 1024 * 1024;

const TagsSchema = z.array(NoteTagSchema).max(MAX_NOTE_TAGS).default([]);
const LimitSchema = (fallback: number) => z.number().int().min(1).max(MAX_NOTES_SHOWN).default(fallback);

/** How a note's author reads: the client and version the session declared, or who else called. */
export function authorName(agent: AgentInfo | undefined): string {
  if (!agent) return 'unknown agent';
  return `${agent.client} ${agent.version}${agent.via ? ` (via ${agent.via.client} ${agent.via.version})` : ''}`;
}

/** Findings in notes read back: another agent wrote them, so they are read with an upstream result's care. */
function noteFindings(data: unknown) {
  return resultFindings(data, []);
}

const memoryStore = defineTool({
  name: 'memory_store',
  version: '1.0.0',
  description:
    'Keeps a note (with optional tags) in this workspace\'s memory, for you and later agents to find with memory_search. ' +
    'Secrets the gate knows are replaced by their $ENV.NAME placeholders before the note is kept. Returns the note with its id.',
  tier: 'STANDARD',
  sideEffects: ['DbWrite'],
  determinism: 'NonDeterministic',
  bounds: { maxOutputBytes: ONE_NOTE_BYTES },
  // The note is given back: a placeholder resolved into it would hand the value to the agent.
  secrets: 'refuse',
  input: z
    .object({
      text: z.string().min(1).max(MAX_NOTE_CHARS).describe(`The note (at most ${MAX_NOTE_CHARS} characters)`),
      tags: TagsSchema.describe('Words to file it under, e.g. ["deploy", "staging"]'),
    })
    .strict(),
  output: MemoryNoteSchema,
  execute: servedByGate,
});

const memorySearch = defineTool({
  name: 'memory_search',
  version: '1.0.0',
  description:
    'Searches this workspace\'s memory notes by words (full-text, best match first, each with a snippet where it matched, ' +
    'matches between **). Optionally only notes carrying every tag given.',
  tier: 'SAFE',
  sideEffects: ['DbRead'],
  determinism: 'NonDeterministic',
  bounds: { maxOutputBytes: NOTES_BYTES },
  input: z
    .object({
      query: z.string().min(1).max(1000).describe('Words to look for; a note needs one of them, more rank it higher'),
      tags: TagsSchema.describe('Only notes carrying all of these tags'),
      limit: LimitSchema(10).describe(`Notes to return at most (default 10, at most ${MAX_NOTES_SHOWN})`),
    })
    .strict(),
  output: z.object({ hits: z.array(MemoryHitSchema).describe('Best match first'), total: z.number().int().describe('Notes the workspace keeps in all') }),
  execute: servedByGate,
});

const memoryList = defineTool({
  name: 'memory_list',
  version: '1.0.0',
  description: 'Lists this workspace\'s memory notes, newest first; optionally only those carrying every tag given.',
  tier: 'SAFE',
  sideEffects: ['DbRead'],
  determinism: 'NonDeterministic',
  bounds: { maxOutputBytes: NOTES_BYTES },
  input: z
    .object({
      tags: TagsSchema.describe('Only notes carrying all of these tags'),
      limit: LimitSchema(20).describe(`Notes to return at most (default 20, at most ${MAX_NOTES_SHOWN})`),
    })
    .strict(),
  output: z.object({ notes: z.array(MemoryNoteSchema).describe('Newest first'), total: z.number().int().describe('Notes the workspace keeps in all') }),
  execute: servedByGate,
});

const memoryDelete = defineTool({
  name: 'memory_delete',
  version: '1.0.0',
  description: 'Deletes one memory note of this workspace by its id (memory_list and memory_search give ids). Returns the note deleted.',
  tier: 'STANDARD',
  sideEffects: ['DbWrite'],
  determinism: 'NonDeterministic',
  bounds: { maxOutputBytes: ONE_NOTE_BYTES },
  input: z.object({ id: z.number().int().positive().describe('The note\'s id') }).strict(),
  output: z.object({ deleted: MemoryNoteSchema }),
  execute: servedByGate,
});

/** The prompt's view of a note to delete; ENOTFOUND when there is none. */
function notePreview(store: NoteStore, id: number): Preview {
  const note = store.get(id);
  if (!note) throw noSuchNote(id);
  return { kind: 'note', action: 'delete', id, text: note.text, tags: note.tags, writtenBy: note.agent };
}

function noSuchNote(id: number): GateError {
  return new GateError('ENOTFOUND', `there is no note ${id} in this workspace's memory; memory_list shows the notes and their ids`, { id });
}

/** The four memory tools, each with what the gate does for it. */
export const MEMORY_TOOLS: ReadonlyArray<GateServedTool<MemoryDeps>> = [
  {
    tool: memoryStore,
    serve: ({ store, redact }) => ({
      preview: (input: { text: string; tags: string[] }): Preview => ({ kind: 'note', action: 'store', ...redact({ text: input.text, tags: input.tags }) }),
      run: (input: { text: string; tags: string[] }, context) => {
        // Out before it is kept: the database file must never hold a secret the gate knows.
        const { text, tags } = redact({ text: input.text, tags: input.tags });
        return store.store(text, tags, { agent: authorName(context.agent), callId: context.callId, ...(context.agentSession ? { agentSession: context.agentSession } : {}) });
      },
    }),
  },
  {
    tool: memorySearch,
    serve: ({ store }) => ({
      run: (input: { query: string; tags: string[]; limit: number }) => ({ hits: store.search(input.query, input.tags, input.limit), total: store.count() }),
      resultFindings: noteFindings,
    }),
  },
  {
    tool: memoryList,
    serve: ({ store }) => ({
      run: (input: { tags: string[]; limit: number }) => ({ notes: store.list(input.tags, input.limit), total: store.count() }),
      resultFindings: noteFindings,
    }),
  },
  {
    tool: memoryDelete,
    serve: ({ store }) => ({
      preview: (input: { id: number }) => notePreview(store, input.id),
      run: (input: { id: number }) => {
        const deleted = store.delete(input.id);
        if (!deleted) throw noSuchNote(input.id);
        return { deleted };
      },
    }),
  },
];
