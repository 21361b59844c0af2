/**
 * An agent chooses a call's tool name, arguments and its agent name: nothing it sends may stop the
 * explorer's index from holding that call and every call after it (which would hide them from the
 * person's Audit tab while the gate goes on running them).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { explorePage } from '../../main/audit/explorerQuery';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';
import { MAX_ARGUMENT_DEPTH } from '../../shared/jsonLimits';

let home: string;
beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => removeTempFolder(home));

let nested: unknown = 'bottom';
// As deep as the gate lets arguments be (MAX_ARGUMENT_DEPTH): deeper ones are refused before any record.
for (let depth = 1; depth < MAX_ARGUMENT_DEPTH; depth++) nested = { a: nested };

const HOSTILE_ARGUMENTS: Array<[string, unknown]> = [
  ['NUL and control characters', { path: 'a\u0000b\u0007c\u001b[31m', command: 'x\r\ny' }],
  ['a lone surrogate', { text: 'x\ud800y' }],
  ['bidi overrides', { path: 'evil\u202etxt.exe' }],
  ['prototype keys', JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{}}}')],
  ['FTS5 query syntax', { text: '" OR 1=1 -- NEAR(a b) * ^x calls_text MATCH' }],
  ['a megabyte of text', { content: 'z'.repeat(1_000_000) }],
  ['the deepest nesting the gate takes', nested],
  ['not an object', 'just a string'],
  ['a number as the tool name', 42],
];

describe('the call index under an agent’s input', () => {
  it('holds every call, hostile or not, and every call after them', () => {
    const store = new AuditStore(auditPaths(home));
    try {
      for (const [label, args] of HOSTILE_ARGUMENTS) {
        const callId = `hostile ${label}`;
        store.append({ callId, kind: 'invoked', payload: { tool: label === 'a number as the tool name' ? args : 'echo', source: 'mcp', agent: label === 'bidi overrides' ? { name: 'not the shape' } : { client: '\u202egemini', version: '\u0000' }, arguments: args } });
        store.append({ callId, kind: 'policy', payload: { decision: 'allow', rule: 'tier:SAFE→allow', reason: label } });
        store.append({ callId, kind: 'completed', payload: { responseHash: 'h', output: args } });
      }
      store.append({ callId: 'after', kind: 'invoked', payload: { tool: 'echo', source: 'mcp', arguments: { text: 'the call after' } } });
      store.append({ callId: 'after', kind: 'completed', payload: { responseHash: 'h', output: 'ok' } });
      const page = explorePage(store, { filter: {}, limit: 100, facets: false });
      const shown = page.rows.map((row) => row.callId);
      expect(shown).toContain('after');
      // A call whose invoked record names no tool as text is no call the explorer can show; every other one is there.
      for (const [label] of HOSTILE_ARGUMENTS.filter(([label]) => label !== 'a number as the tool name')) expect(shown).toContain(`hostile ${label}`);
      expect(page.notice ?? '').not.toMatch(/behind/);
      expect(explorePage(store, { filter: { text: 'NEAR(a b)' }, limit: 100, facets: false }).rows.map((row) => row.callId)).toEqual(['hostile FTS5 query syntax']);
    } finally {
      store.close();
    }
  });
});

describe('the call index under a log whose call ids repeat', () => {
  it('shows the later call of a repeated id and every call after it', () => {
    const store = new AuditStore(auditPaths(home));
    try {
      for (const text of ['the first', 'the second']) {
        store.append({ callId: 'twice', kind: 'invoked', payload: { tool: 'echo', source: 'mcp', arguments: { text } } });
        store.append({ callId: 'twice', kind: 'completed', payload: { responseHash: 'h', output: text } });
      }
      store.append({ callId: 'after', kind: 'invoked', payload: { tool: 'echo', source: 'mcp', arguments: { text: 'the call after' } } });
      store.append({ callId: 'after', kind: 'completed', payload: { responseHash: 'h', output: 'ok' } });
      const page = explorePage(store, { filter: {}, limit: 100, facets: false });
      expect(page.rows.map((row) => [row.callId, row.argsBrief])).toEqual([
        ['after', '{"text":"the call after"}'],
        ['twice', '{"text":"the second"}'],
      ]);
      expect(page.notice ?? '').not.toMatch(/behind/);
    } finally {
      store.close();
    }
  });
});
