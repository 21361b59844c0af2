import { describe, expect, it, vi } from 'vitest';
import { fastBlake3Hex } from '../../main/audit/fastBlake3';
import { DEFAULT_ARGUMENT_BOUNDS } from '../../main/executor/steps/argumentBounds';
import { argumentBoundBreach, MAX_RECORDED_MEMBERS, MAX_SHOWN_OUTPUT_STRING, recordedArguments, shownOutput } from '../../main/executor/steps/recordedArguments';
import { countMemberReads } from '../fixtures/workCounters';

const MIB = 1024 * 1024;

vi.mock('../../main/audit/fastBlake3', async (original) => {
  const real = await original<typeof import('../../main/audit/fastBlake3')>();
  return { ...real, fastBlake3Hex: vi.fn(real.fastBlake3Hex) };
});
const hashed = vi.mocked(fastBlake3Hex);

function manyKeys(count: number): Record<string, number> {
  const object: Record<string, number> = {};
  for (let i = 0; i < count; i++) object[`k${i}`] = i;
  return object;
}

describe('argument bounds', () => {
  it('lets ordinary arguments through', () => {
    expect(argumentBoundBreach({ path: 'a.txt', content: 'x'.repeat(100_000), lines: [1, 2, 3] })).toBeUndefined();
  });

  it.each([
    ['a million-element array', () => ({ items: new Array(1_000_000).fill(0) }), 'maxElements', 100_000],
    ['an object with 100k keys', () => manyKeys(100_000), 'maxKeysPerObject', 10_000],
    ['a 4 MiB string', () => ({ content: 'x'.repeat(4 * MIB) }), 'maxBytes', 4 * MIB],
    ['4 MiB of raw JSON text', () => JSON.stringify({ content: 'y'.repeat(4 * MIB) }), 'maxBytes', 4 * MIB],
    ['many small arrays', () => ({ rows: new Array(60_000).fill(0).map(() => [0, 0]) }), 'maxElements', 100_000],
    ['many small objects', () => ({ a: new Array(50_000).fill(0).map(() => ({ x: 1, y: 2, z: 3 })) }), 'maxNodes', 200_000],
  ])('refuses %s naming the bound and its limit', (_what, make, bound, limit) => {
    const broken = argumentBoundBreach(make());
    expect(broken).toMatchObject({ bound, limit });
    expect(broken!.message).toContain(`${bound} bound is ${limit}`);
  });

  it('counts multi-byte text by its UTF-8 bytes', () => {
    // 1.5 M characters of 3 bytes each: 4.5 MB, though under 4 Mi characters.
    expect(argumentBoundBreach({ text: '€'.repeat(1_500_000) })?.bound).toBe('maxBytes');
  });

  it('stops at the first breach: a ten-million-element array is refused without reading one element', () => {
    const items = countMemberReads(new Array(10_000_000).fill(0));
    expect(argumentBoundBreach({ items: items.value })?.bound).toBe('maxElements');
    // Refused on the array's length: not one of its elements was read.
    expect(items.reads()).toBe(0);
  });
});

describe('recorded arguments stay small', () => {
  it('records arguments over a bound as a note, never the flood itself', () => {
    const recorded = recordedArguments({ items: new Array(1_000_000).fill(0) });
    expect(recorded).toEqual({ 'toolgate/omitted': `arguments over the gate's maxElements bound (${DEFAULT_ARGUMENT_BOUNDS.maxElements})` });
  });

  it('keeps the first members of a large array and counts the rest', () => {
    const recorded = recordedArguments({ items: Array.from({ length: 5_000 }, (_, i) => i) }) as { items: unknown[] };
    expect(recorded.items).toHaveLength(MAX_RECORDED_MEMBERS + 1);
    expect(recorded.items[0]).toBe(0);
    expect(recorded.items.at(-1)).toEqual({ 'toolgate/omitted': `${5_000 - MAX_RECORDED_MEMBERS} more elements (5000 in all)` });
  });

  it('keeps the first keys of a large object and counts the rest', () => {
    const recorded = recordedArguments(manyKeys(9_000)) as Record<string, unknown>;
    expect(Object.keys(recorded)).toHaveLength(MAX_RECORDED_MEMBERS + 1);
    expect(recorded['toolgate/omitted']).toBe(`${9_000 - MAX_RECORDED_MEMBERS} more keys (9000 in all)`);
  });

  it('holds the whole record to a budget however the arguments are shaped', () => {
    // Within every bound, yet 200 strings of 16 KiB would be 3 MiB if each were kept whole.
    const wide = { parts: Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(16_000, 'z')) };
    expect(argumentBoundBreach(wide)).toBeUndefined();
    expect(JSON.stringify(recordedArguments(wide)).length).toBeLessThan(512 * 1024);
    const nested = { rows: Array.from({ length: 190 }, () => Array.from({ length: 190 }, () => 'v')) };
    expect(JSON.stringify(recordedArguments(nested)).length).toBeLessThan(64 * 1024);
  });

  it('keeps ordinary arguments exactly as sent', () => {
    const args = { path: 'src/a.ts', content: 'hello', lines: [1, 2, 3], nested: { ok: true } };
    expect(recordedArguments(args)).toEqual(args);
  });
});

describe('the output the Live view is sent', () => {
  it('keeps a 16 MiB output to a short prefix and its length, visiting only the members it keeps and hashing nothing', () => {
    // Parsed, as it arrives from a tool process.
    const links = countMemberReads(Array.from({ length: 100_000 }, (_, i) => `https://example.com/${i}`));
    const huge = { page: 'p'.repeat(16 * MIB), links: links.value };
    hashed.mockClear();
    const shown = shownOutput(huge) as { page: Record<string, unknown>; links: unknown[] };
    // Only the links it keeps are visited, and nothing is hashed (the response hash covers the whole).
    expect(links.reads()).toBe(MAX_RECORDED_MEMBERS + 1);
    expect(hashed).not.toHaveBeenCalled();
    expect(shown.page).toEqual({ 'toolgate/truncated': 'p'.repeat(1024), chars: 16 * MIB });
    expect(shown.links).toHaveLength(MAX_RECORDED_MEMBERS + 1);
    expect(JSON.stringify(shown).length).toBeLessThan(MAX_SHOWN_OUTPUT_STRING + 32 * 1024);
  });

  it('keeps an ordinary output as it is', () => {
    const output = { text: 'x'.repeat(20_000), items: [1, 2, 3] };
    expect(shownOutput(output)).toEqual(output);
  });
});

