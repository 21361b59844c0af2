/**
 * Which Node runs Toolgate: `npm install`, `npm start`, `npm test` and the `toolgate` command stop at
 * once on one that cannot, saying why and how to get one that can. The audit explorer's search is a
 * full-text index of Node's built-in SQLite (FTS5, trigram), which Node builds in from 22.16 on the
 * 22 line and from 24.0: on 22.13–22.15 and on 23 the gate would start and its explorer would not.
 */
import { describe, expect, it } from 'vitest';
import { nodeVersionProblem } from '../../scripts/check-node.mjs';
import { openDatabase } from '../../main/audit/sqlite';

describe('the Node versions Toolgate runs on', () => {
  it('refuses a Node whose SQLite has no full-text search, and one older, saying which and how to get one', () => {
    for (const version of ['22.13.0', '22.15.1', '23.0.0', '23.11.0']) {
      expect(nodeVersionProblem(version)).toMatch(new RegExp(`this is Node ${version.replace(/\./g, '\\.')}: its built-in SQLite has no full-text search \\(FTS5\\)`));
    }
    expect(nodeVersionProblem('20.20.2')).toMatch(/needs Node 22\.16 or newer on the 22 line, or Node 24 or newer .*this is Node 20\.20\.2\./);
    expect(nodeVersionProblem('18.19.0')).toMatch(/npm install --prefix ~\/\.node22 node@22/);
  });

  it('takes 22.16 and later, and 24 and later', () => {
    for (const version of ['22.16.0', '22.23.3', '24.0.0', '24.11.1', '25.2.0']) expect(nodeVersionProblem(version)).toBeUndefined();
  });

  it('runs on this Node, whose SQLite builds the call index’s full-text table', () => {
    expect(nodeVersionProblem(process.versions.node)).toBeUndefined();
    const db = openDatabase(':memory:');
    try {
      db.exec("CREATE VIRTUAL TABLE calls_text USING fts5(body, tokenize = 'trigram', content = '', contentless_delete = 1)");
      db.prepare('INSERT INTO calls_text (rowid, body) VALUES (?, ?)').run(1, 'write_file notes/plan.md');
      expect(db.prepare("SELECT rowid FROM calls_text WHERE calls_text MATCH 'plan'").all()).toHaveLength(1);
    } finally {
      db.close();
    }
  });
});
