/**
 * Steps canonicalized ahead of their record (AuditStore.prepareStep, done while a call's tool runs)
 * are written exactly as the same steps given as they were: the same stored text, hash and payload,
 * whatever the redaction, the repair of lone surrogates, or the order of keys. A step with no JSON
 * form is refused as append() refuses it.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CallStep } from '../../shared/audit';
import { AuditStore } from '../../main/audit/auditStore';
import { openDatabase } from '../../main/audit/sqlite';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths } from './auditFixture';

const CLOCK = new Date('2026-11-29T12:00:00.000Z');

/** Hides the secret `hunter2` and, when told, the word `steps` too (a secret may be any string). */
function redactor(alsoSteps = false) {
  const hide = (text: string) => text.replaceAll('hunter2', '[secret]').replace(alsoSteps ? /^steps$/ : /$^/, '[secret]');
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return hide(value);
    if (Array.isArray(value)) return value.map(walk);
    if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([key, member]) => [hide(key), walk(member)]));
    return value;
  };
  return walk;
}

let homes: string[];
beforeEach(() => {
  homes = [];
});
afterEach(() => {
  for (const home of homes) removeTempFolder(home);
});

function openStore(alsoSteps = false): AuditStore {
  const home = makeTempFolder();
  homes.push(home);
  return new AuditStore({ ...auditPaths(home), now: () => CLOCK, redact: redactor(alsoSteps) });
}

/** The row the store wrote, as another reader of the file sees it. */
function storedRow(store: AuditStore, home: string): { payload: string; hash: string } {
  store.close();
  const db = openDatabase(auditPaths(home).path, { readOnly: true });
  try {
    return db.prepare('SELECT payload, hash FROM audit ORDER BY seq DESC LIMIT 1').get() as unknown as { payload: string; hash: string };
  } finally {
    db.close();
  }
}

const STEPS: CallStep[] = [
  // Keys out of order, a secret in a value and in a key, a lone surrogate, nesting.
  { time: CLOCK.toISOString(), kind: 'invoked', atMs: 0.01, payload: { tool: 'echo', arguments: { text: 'say hunter2', hunter2: ['\uD800 cut', { z: 1, a: 2 }] } } },
  { kind: 'policy', time: CLOCK.toISOString(), atMs: 0.2, payload: { rule: 'tier:SAFE→allow', decision: 'allow', tier: 'SAFE' } },
  { kind: 'started', time: CLOCK.toISOString(), atMs: 0.3, payload: { tool: 'echo', version: '1.0.0', inputHash: 'ab'.repeat(32) } },
  { kind: 'completed', time: CLOCK.toISOString(), atMs: 1.5, payload: { output: { text: 'said hunter2' }, durationMs: 1.5, responseHash: 'cd'.repeat(32) } },
];

describe('a call record made of steps prepared ahead', () => {
  for (const alsoSteps of [false, true]) {
    it(`is stored with the same text, hash and payload as the steps given whole${alsoSteps ? ', even when redaction reaches the "steps" key itself' : ''}`, () => {
      const whole = openStore(alsoSteps);
      const ahead = openStore(alsoSteps);
      const wholeRecord = whole.append({ callId: 'call-1', kind: 'call', payload: { steps: STEPS } });
      // The first three prepared while the tool "ran", the last one given at the end, as the executor does.
      const prepared = [...STEPS.slice(0, 3).map((step) => ahead.prepareStep(step)), STEPS[3]];
      const aheadRecord = ahead.append({ callId: 'call-1', kind: 'call', payload: { steps: prepared } });

      expect(aheadRecord.hash).toBe(wholeRecord.hash);
      expect(aheadRecord.payload).toEqual(wholeRecord.payload);
      expect(JSON.stringify(aheadRecord.payload)).toBe(JSON.stringify(wholeRecord.payload));
      const [wholeRow, aheadRow] = [storedRow(whole, homes[0]!), storedRow(ahead, homes[1]!)];
      expect(aheadRow).toEqual(wholeRow);
      // What is stored is redacted and repaired, whichever way it came.
      expect(aheadRow.payload).not.toContain('hunter2');
      expect(aheadRow.payload).toContain('\uFFFD cut');
      expect(aheadRow.payload.startsWith(alsoSteps ? '{"[secret]":[' : '{"steps":[')).toBe(true);
    });
  }

  it('verifies as any other record, and a later store reads it back as written', () => {
    const store = openStore();
    const record = store.append({ callId: 'call-1', kind: 'call', payload: { steps: STEPS.map((step) => store.prepareStep(step)) } });
    expect(store.verify()).toEqual({ ok: true, records: 1 });
    expect(store.recordsOfCall('call-1')).toEqual([record]);
  });

  it('refuses a step with no JSON form when it is prepared, as append() refuses it', () => {
    const store = openStore();
    const broken = { kind: 'completed', time: CLOCK.toISOString(), atMs: 1, payload: { count: 10n } } as unknown as CallStep;
    expect(() => store.append({ callId: 'call-1', kind: 'call', payload: { steps: [broken] } })).toThrow(/bigint has no JSON form/);
    expect(() => store.prepareStep(broken)).toThrow(/bigint has no JSON form/);
  });
});
