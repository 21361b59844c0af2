import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { GateError } from '../../../shared/errors';
import type { MemoryHit, MemoryNote } from '../../../shared/memory';
import { openDatabase, type SqliteDatabase } from '../../audit/sqlite';

/** Notes one workspace keeps at most: past it a store is refused (EQUOTA) until some are deleted. */
export const MAX_NOTES = 10_000;
/** Words of a query looked for: a longer query is cut here (each word costs a lookup in the index). */
const MAX_QUERY_TERMS = 32;
/** Tokens of context a snippet shows around what matched. */
const SNIPPET_TOKENS = 16;

/**
 * The folder of one workspace's notes inside the state folder: named by a hash of the workspace's
 * real path, so no path an agent writes can name it, and a gate opens only its own workspace's.
 */
export function memoryFolder(home: string, workspace: string): string {
  return join(home, 'memory', createHash('sha256').update(workspace).digest('hex').slice(0, 32));
}

/** What a note is written with, besides its text and tags: who wrote it and in which call. */
export interface NoteAuthor {
  /** The agent's client name and version (`claude-code 1.2.3`), or `person` for the console. */
  agent: string;
  /** The MCP session it came from, when there was one. */
  agentSession?: string;
  /** The gate's id of the call that wrote it. */
  callId: string;
}

interface NoteRow {
  id: number;
  text: string;
  tags: string;
  agent: string;
  agent_session: string | null;
  call_id: string;
  created_at: string;
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  text TEXT NOT NULL,
  tags TEXT NOT NULL,
  agent TEXT NOT NULL,
  agent_session TEXT,
  call_id TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE VIRTUAL TABLE IF NOT EXISTS notes_fts USING fts5(text, tags, content='notes', content_rowid='id', tokenize='unicode61 remove_diacritics 2');
CREATE TRIGGER IF NOT EXISTS notes_added AFTER INSERT ON notes BEGIN
  INSERT INTO notes_fts(rowid, text, tags) VALUES (new.id, new.text, new.tags);
END;
CREATE TRIGGER IF NOT EXISTS notes_removed AFTER DELETE ON notes BEGIN
  INSERT INTO notes_fts(notes_fts, rowid, text, tags) VALUES ('delete', old.id, old.text, old.tags);
END;
`;

/**
 * One workspace's memory: notes with tags in a SQLite database of the state folder, searched
 * through an FTS5 index ranked by bm25 (tags weigh twice the text). The gate alone opens it (see
 * memoryTools.ts): tool processes never see the state folder. Notes are never edited, only added
 * and deleted, and ids are never reused, so a prompt naming a note names that note for good.
 */
export class NoteStore {
  private readonly db: SqliteDatabase;
  readonly path: string;

  constructor(home: string, workspace: string) {
    const folder = memoryFolder(home, workspace);
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    this.path = join(folder, 'notes.db');
    this.db = openDatabase(this.path);
    chmodSync(this.path, 0o600);
    this.db.exec('PRAGMA journal_mode = WAL');
    this.db.exec(SCHEMA);
    const owner = this.db.prepare("SELECT value FROM meta WHERE key = 'workspace'").get() as { value: string } | undefined;
    if (owner === undefined) this.db.prepare("INSERT INTO meta (key, value) VALUES ('workspace', ?)").run(workspace);
    else if (owner.value !== workspace) {
      this.db.close();
      throw new GateError('EPERMISSION', `the memory database ${this.path} belongs to the workspace ${owner.value}, not ${workspace}; move it away to start this workspace's memory afresh`);
    }
  }

  /** Keeps a note (text and tags as given: the caller has taken secrets out); EQUOTA past MAX_NOTES. */
  store(text: string, tags: readonly string[], author: NoteAuthor): MemoryNote {
    if (this.count() >= MAX_NOTES) {
      throw new GateError('EQUOTA', `this workspace keeps ${MAX_NOTES} notes already; delete some (memory_list, then memory_delete) before storing more`);
    }
    const row = this.db
      .prepare('INSERT INTO notes (text, tags, agent, agent_session, call_id, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *')
      .get(text, tags.join(' '), author.agent, author.agentSession ?? null, author.callId, new Date().toISOString()) as unknown as NoteRow;
    return toNote(row);
  }

  /** The note with this id, if there is one. */
  get(id: number): MemoryNote | undefined {
    const row = this.db.prepare('SELECT * FROM notes WHERE id = ?').get(id) as NoteRow | undefined;
    return row ? toNote(row) : undefined;
  }

  /** Deletes a note; returns it, or undefined when there was none. */
  delete(id: number): MemoryNote | undefined {
    const row = this.db.prepare('DELETE FROM notes WHERE id = ? RETURNING *').get(id) as NoteRow | undefined;
    return row ? toNote(row) : undefined;
  }

  /** How many notes there are. */
  count(): number {
    return (this.db.prepare('SELECT count(*) AS n FROM notes').get() as { n: number }).n;
  }

  /** The newest notes first, those carrying every tag given. */
  list(tags: readonly string[], limit: number): MemoryNote[] {
    const { clause, values } = tagFilter(tags);
    const rows = this.db.prepare(`SELECT * FROM notes WHERE 1 = 1 ${clause} ORDER BY id DESC LIMIT ?`).all(...values, limit) as unknown as NoteRow[];
    return rows.map(toNote);
  }

  /**
   * The notes matching a query, best first (bm25), each with a snippet around what matched. Each
   * word of the query is looked for as a word or a word's beginning; a note needs only one of them,
   * and more of them (or rarer ones) rank it higher. The query's own syntax is never passed to FTS5.
   */
  search(query: string, tags: readonly string[], limit: number): MemoryHit[] {
    const match = ftsQuery(query);
    if (match === undefined) throw new GateError('EVALIDATION', `the query ${JSON.stringify(query.slice(0, 100))} holds no word to look for; send some words, e.g. "deploy staging"`);
    const { clause, values } = tagFilter(tags);
    const rows = this.db
      .prepare(
        `SELECT notes.*, bm25(notes_fts, 1.0, 2.0) AS rank, snippet(notes_fts, 0, '**', '**', '…', ${SNIPPET_TOKENS}) AS snippet
         FROM notes_fts JOIN notes ON notes.id = notes_fts.rowid
         WHERE notes_fts MATCH ? ${clause} ORDER BY rank, notes.id DESC LIMIT ?`,
      )
      .all(match, ...values, limit) as unknown as Array<NoteRow & { rank: number; snippet: string }>;
    return rows.map((row) => ({ ...toNote(row), score: roundScore(-row.rank), snippet: row.snippet }));
  }

  /** Closes the database. Idempotent. */
  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

function toNote(row: NoteRow): MemoryNote {
  return {
    id: row.id,
    text: row.text,
    tags: row.tags === '' ? [] : row.tags.split(' '),
    agent: row.agent,
    ...(row.agent_session ? { agentSession: row.agent_session } : {}),
    callId: row.call_id,
    createdAt: row.created_at,
  };
}

/** bm25 is negative, better the lower; shown as a positive score, better the higher. */
function roundScore(score: number): number {
  return Math.round(score * 1e6) / 1e6;
}

/** A condition keeping notes that carry every tag (tags are single words, stored space-separated). */
function tagFilter(tags: readonly string[]): { clause: string; values: string[] } {
  return {
    clause: tags.map(() => "AND (' ' || notes.tags || ' ') LIKE ? ESCAPE '\\'").join(' '),
    values: tags.map((tag) => `% ${tag.replace(/[\\%_]/g, (char) => `\\${char}`)} %`),
  };
}

/**
 * The FTS5 query for a person's or agent's words: each word quoted (so `OR`, `NEAR`, `*`, `:` and
 * column names in the text are words, never syntax), a word of three letters or more also matching
 * longer words it begins, any one of them enough. Undefined when the text holds no word.
 */
export function ftsQuery(text: string): string | undefined {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [])].slice(0, MAX_QUERY_TERMS);
  if (words.length === 0) return undefined;
  return words.map((word) => `"${word}"${word.length >= 3 ? '*' : ''}`).join(' OR ');
}
