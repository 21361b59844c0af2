import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GENESIS_HASH, type AuditRecord } from '../../shared/audit';
import { canonicalize } from '../../shared/canonicalJson';
import { blake3Hex } from '../../shared/hash';
import { AuditStore } from '../../main/audit/auditStore';
import { openDatabase } from '../../main/audit/sqlite';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';

let home: string;
let store: AuditStore;
let tick = 0;
const clock = () => new Date(Date.UTC(2026, 0, 1, 12, 0, tick++));

beforeEach(() => {
  home = makeTempFolder();
  tick = 0;
  store = new AuditStore({ ...auditPaths(home), now: clock });
});
afterEach(() => {
  store.close();
  removeTempFolder(home);
});

describe('AuditStore', () => {
  it('chains each record to the one before: hash = BLAKE3(prevHash ‖ canonical fields)', () => {
    const first = store.append({ callId: 'c1', kind: 'invoked', payload: { tool: 'echo', arguments: { text: 'hi' } } });
    const second = store.append({ callId: 'c1', kind: 'completed', payload: { z: 1, a: [true, null] } });
    expect(first).toMatchObject({ seq: 1, prevHash: GENESIS_HASH, time: '2026-01-01T12:00:00.000Z' });
    expect(second).toMatchObject({ seq: 2, prevHash: first.hash });
    for (const record of [first, second]) {
      const { seq, callId, kind, time, payload } = record;
      expect(record.hash).toBe(blake3Hex(record.prevHash + canonicalize({ seq, callId, kind, time, payload })));
    }
    expect(first.hash).not.toBe(second.hash);
  });

  it('stores payloads as canonical JSON and gives them back as written', () => {
    store.append({ callId: 'c1', kind: 'policy', payload: { rule: 'tier:SAFE→allow', decision: 'allow' } });
    store.append({ callId: 'c1', kind: 'started', payload: undefined });
    store.close();
    const db = openDatabase(auditPaths(home).path, { readOnly: true });
    const rows = db.prepare('SELECT payload FROM audit ORDER BY seq').all() as Array<{ payload: string }>;
    db.close();
    expect(rows.map((row) => row.payload)).toEqual(['{"decision":"allow","rule":"tier:SAFE→allow"}', 'null']);
  });

  it('lists newest first with a limit and a cursor, and gives one call’s records oldest first', () => {
    for (const callId of ['a', 'b', 'a', 'b', 'a']) store.append({ callId, kind: 'invoked', payload: {} });
    expect(store.list({ limit: 2 }).map((record) => record.seq)).toEqual([5, 4]);
    expect(store.list({ limit: 10, beforeSeq: 3 }).map((record) => record.seq)).toEqual([2, 1]);
    expect(store.forCall('a').map((record) => record.seq)).toEqual([1, 3, 5]);
    expect(store.forCall('nobody')).toEqual([]);
  });

  it('tells listeners of each record; a failing listener loses nothing; unsubscribe stops it', () => {
    const heard: AuditRecord[] = [];
    store.onAppend(() => {
      throw new Error('listener broke');
    });
    const stop = store.onAppend((record) => heard.push(record));
    const record = store.append({ callId: 'c', kind: 'invoked', payload: 1 });
    // Listeners hear a record once it is committed, not when it is appended.
    expect(heard).toEqual([]);
    store.commit();
    stop();
    store.append({ callId: 'c', kind: 'failed', payload: 2 });
    store.commit();
    expect(heard).toEqual([record]);
    expect(store.verify()).toMatchObject({ ok: true, records: 2 });
  });

  it('verifies an intact log, empty or not', () => {
    expect(store.verify()).toEqual({ ok: true, records: 0 });
    for (let i = 0; i < 4; i++) store.append({ callId: 'c', kind: 'invoked', payload: { i } });
    expect(store.verify()).toMatchObject({ ok: true, records: 4 });
  });

  it('continues the same chain after reopening', () => {
    const before = store.append({ callId: 'c', kind: 'invoked', payload: {} });
    store.close();
    store = new AuditStore({ ...auditPaths(home), now: clock });
    const after = store.append({ callId: 'c', kind: 'completed', payload: {} });
    expect(after).toMatchObject({ seq: 2, prevHash: before.hash });
    expect(store.verify()).toMatchObject({ ok: true, records: 2 });
  });

  it('refuses UPDATE and DELETE through SQL: the table is append-only', () => {
    store.append({ callId: 'c', kind: 'invoked', payload: { secret: false } });
    store.close();
    const db = openDatabase(auditPaths(home).path);
    try {
      expect(() => db.prepare("UPDATE audit SET payload = '{}' WHERE seq = 1").run()).toThrow(/append-only/);
      expect(() => db.prepare('DELETE FROM audit WHERE seq = 1').run()).toThrow(/append-only/);
      expect(db.prepare('SELECT payload FROM audit WHERE seq = 1').get()).toEqual({ payload: '{"secret":false}' });
    } finally {
      db.close();
    }
  });

  it('close() is idempotent and a closed or read-only store refuses to append', () => {
    store.append({ callId: 'c', kind: 'invoked', payload: {} });
    store.close();
    store.close();
    expect(() => store.append({ callId: 'c', kind: 'invoked', payload: {} })).toThrow(/closed or read-only/);
    const reader = new AuditStore({ ...auditPaths(home), readonly: true });
    try {
      expect(() => reader.append({ callId: 'c', kind: 'invoked', payload: {} })).toThrow(/closed or read-only/);
      expect(reader.verify()).toMatchObject({ ok: true, records: 1 });
    } finally {
      reader.close();
    }
  });

  it('refuses a payload with no JSON form before writing anything', () => {
    expect(() => store.append({ callId: 'c', kind: 'invoked', payload: { n: Number.NaN } })).toThrow(TypeError);
    expect(store.list({ limit: 10 })).toEqual([]);
    expect(store.append({ callId: 'c', kind: 'invoked', payload: {} }).seq).toBe(1);
  });
});
