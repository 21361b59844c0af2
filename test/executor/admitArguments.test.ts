import { describe, expect, it } from 'vitest';
import { admitArguments, type Admission } from '../../main/executor/steps/admitArguments';
import { blake3Hex } from '../../shared/hash';
import { nestedArrays } from '../fixtures/nestedJson';

const MIB = 1024 * 1024;

function refusalOf(admission: Admission) {
  if (!('refusal' in admission)) throw new Error(`expected a refusal, got ${JSON.stringify(admission)}`);
  return admission.refusal;
}

function argsOf(admission: Admission): unknown {
  if ('refusal' in admission) throw new Error(`expected the arguments admitted, got ${admission.refusal.error.message}`);
  return admission.args;
}

describe('admitting a call’s arguments', () => {
  it('admits ordinary arguments as sent and records them exactly', () => {
    const args = { path: 'src/a.ts', content: 'hello ✓ 😀', lines: [1, 2, 3], nested: { ok: true, none: null } };
    const admission = admitArguments(args);
    expect(argsOf(admission)).toBe(args);
    expect(admission.recorded).toEqual(args);
    expect(admission).not.toHaveProperty('recordedParsed');
  });

  it('takes missing arguments as an empty object', () => {
    expect(argsOf(admitArguments(undefined))).toEqual({});
  });

  it('refuses a flood of keys naming the bound, records only a note, and stops without listing the flood', () => {
    const flood: Record<string, number> = {};
    for (let i = 0; i < 100_000; i++) flood[`k${i}`] = i;
    const admission = admitArguments({ flood });
    expect(refusalOf(admission).error).toMatchObject({ code: 'EVALIDATION', details: { bound: 'maxKeysPerObject', limit: 10_000 } });
    expect(refusalOf(admission).error.message).toContain("the gate's maxKeysPerObject bound is 10000");
    expect(admission.recorded).toEqual({ 'toolgate/omitted': "arguments over the gate's maxKeysPerObject bound (10000)" });
  });

  it('refuses a 4 MiB string by its bytes, and records a note instead of the string', () => {
    const admission = admitArguments({ content: 'x'.repeat(4 * MIB) });
    expect(refusalOf(admission).error.details).toEqual({ bound: 'maxBytes', limit: 4 * MIB });
    expect(JSON.stringify(admission.recorded).length).toBeLessThan(200);
  });

  it('admits a string just under the bound, recording its prefix, length and BLAKE3', () => {
    const content = 'y'.repeat(3 * MIB);
    const admission = admitArguments({ content });
    expect(argsOf(admission)).toEqual({ content });
    const recorded = (admission.recorded as { content: Record<string, unknown> }).content;
    expect(recorded).toEqual({ 'toolgate/truncated': 'y'.repeat(1024), chars: 3 * MIB, blake3: blake3Hex(content) });
  });

  it('refuses nesting deeper than 64 levels, thousands deep, without overflowing the stack', () => {
    const admission = admitArguments({ path: nestedArrays(100_000) });
    expect(refusalOf(admission).error.message).toBe('the arguments nest deeper than 64 levels; send flatter arguments');
    expect(admission.recorded).toEqual({ 'toolgate/omitted': 'arguments nested deeper than 64 levels' });
  });

  it('admits 64 levels of nesting, the deepest the gate takes', () => {
    let nested: unknown = 'leaf';
    for (let depth = 0; depth < 64; depth++) nested = [nested];
    expect(argsOf(admitArguments(nested))).toBe(nested);
    expect(refusalOf(admitArguments([nested])).error.message).toContain('nest deeper than 64 levels');
  });

  it('refuses a lone surrogate in a value naming its field, and records the value made well-formed', () => {
    const admission = admitArguments({ items: ['fine', { name: 'bad \uD800 half' }] });
    expect(refusalOf(admission).error).toEqual({
      code: 'EVALIDATION',
      message: 'items.1.name holds a lone surrogate (half of a UTF-16 pair), which is not text; send well-formed Unicode',
      details: { field: 'items.1.name' },
    });
    expect(admission.recorded).toEqual({ items: ['fine', { name: 'bad \uFFFD half' }] });
  });

  it('refuses a lone surrogate in a key naming where it is (the name made well-formed), the first in document order', () => {
    const admission = admitArguments({ a: { 'k\uDC00': 1 }, b: 'late \uD800' });
    expect(refusalOf(admission).error.details).toEqual({ field: 'a.k\uFFFD' });
    expect(admission.recorded).toEqual({ a: { 'k\uFFFD': 1 }, b: 'late \uFFFD' });
  });

  it('refuses a bound before a lone surrogate, whichever comes first', () => {
    const admission = admitArguments({ first: '\uD800', rows: new Array(200_000).fill(0) });
    expect(refusalOf(admission).error.details).toEqual({ bound: 'maxElements', limit: 100_000 });
  });

  it('parses raw JSON text, recording the text as sent and the arguments as parsed', () => {
    const admission = admitArguments('{"path": "notes.txt"}');
    expect(argsOf(admission)).toEqual({ path: 'notes.txt' });
    expect(admission.recorded).toBe('{"path": "notes.txt"}');
    expect(admission.recordedParsed).toEqual({ path: 'notes.txt' });
  });

  it('refuses raw text that is not JSON, saying so', () => {
    const refusal = refusalOf(admitArguments('{"path": notes.txt}'));
    expect(refusal.error.message).toMatch(/^the arguments are not valid JSON \(.+\); send a JSON object such as/);
  });

  it('refuses 4 MiB of raw text by its bytes, before parsing it', () => {
    const admission = admitArguments(JSON.stringify({ content: 'z'.repeat(4 * MIB) }));
    expect(refusalOf(admission).error.details).toEqual({ bound: 'maxBytes', limit: 4 * MIB });
    expect(admission).not.toHaveProperty('recordedParsed');
  });

  it('refuses raw text that parses into a flood, too deep a value or a lone surrogate', () => {
    expect(refusalOf(admitArguments(JSON.stringify({ rows: new Array(150_000).fill(1) }))).error.details).toEqual({ bound: 'maxElements', limit: 100_000 });
    expect(refusalOf(admitArguments(JSON.stringify({ path: nestedArrays(1_000) }))).error.message).toContain('nest deeper than 64 levels');
    // The escape is valid JSON text; what it parses to is not well-formed Unicode.
    expect(refusalOf(admitArguments('{"text": "\\ud800"}')).error.details).toEqual({ field: 'text' });
  });

  it('keeps prototype keys as ordinary keys: recorded as sent, and no object’s prototype changes', () => {
    const args = JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}, "path": "a.txt"}') as Record<string, unknown>;
    const admission = admitArguments(args);
    expect(argsOf(admission)).toBe(args);
    const recorded = admission.recorded as Record<string, unknown>;
    expect(Object.keys(recorded)).toEqual(['__proto__', 'constructor', 'path']);
    expect(Object.getPrototypeOf(recorded)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(recorded, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
