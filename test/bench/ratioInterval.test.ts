/**
 * The bench's interval of a ratio of two percentiles: a person reading "0.98× (limit ≤ 1×)" learns
 * from it whether the run could as well have said 1.02×.
 */
import { describe, expect, it } from 'vitest';
import { percentile, ratioInterval } from '../../bench/benchResult';
import { targetRow } from '../../bench/stats.mjs';

/** Latency-like samples (ms): a floor, a spread and a long tail, from a fixed seed. */
function latencies(count: number, seed: number, scale = 1): number[] {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
  return Array.from({ length: count }, () => scale * (0.8 + 0.4 * next() + (next() < 0.05 ? 3 * next() : 0)));
}

describe('ratioInterval', () => {
  it('reaches either side of 1 for two runs of the same server', () => {
    const [low, high] = ratioInterval([latencies(1000, 1)], [latencies(1000, 2)], 50);
    expect(low).toBeLessThan(1);
    expect(high).toBeGreaterThan(1);
  });

  it('keeps a real difference away from 1, around the ratio the samples give', () => {
    const slower = latencies(1000, 3, 1.3);
    const baseline = latencies(1000, 4);
    const ratio = percentile(slower, 50) / percentile(baseline, 50);
    const [low, high] = ratioInterval([slower], [baseline], 50);
    expect(low).toBeGreaterThan(1.15);
    expect(low).toBeLessThan(ratio);
    expect(high).toBeGreaterThan(ratio);
    expect(high).toBeLessThan(1.45);
  });

  it('narrows as a run takes more samples', () => {
    const width = (count: number) => {
      const [low, high] = ratioInterval([latencies(count, 5)], [latencies(count, 6)], 50);
      return high - low;
    };
    expect(width(4000)).toBeLessThan(width(250) / 2);
  });

  it('counts processes of one server that differ in speed: wider than the same samples from one process', () => {
    const processes = [latencies(400, 11, 0.95), latencies(400, 12, 1.05), latencies(400, 13, 1)];
    const baseline = [latencies(400, 14), latencies(400, 15), latencies(400, 16)];
    const [lowSplit, highSplit] = ratioInterval(processes, baseline, 50);
    const [lowPooled, highPooled] = ratioInterval([processes.flat()], [baseline.flat()], 50);
    expect(highSplit - lowSplit).toBeGreaterThan(1.5 * (highPooled - lowPooled));
    expect(lowSplit).toBeLessThan(1);
    expect(highSplit).toBeGreaterThan(1);
  });

  it('is wider at p99 than at p50: the tail rests on few samples', () => {
    const [a, b] = [latencies(1000, 7), latencies(1000, 8)];
    const [low50, high50] = ratioInterval([a], [b], 50);
    const [low99, high99] = ratioInterval([a], [b], 99);
    expect(high99 - low99).toBeGreaterThan(high50 - low50);
  });

  it('gives the same interval for the same samples, and none for no samples', () => {
    const [a, b] = [latencies(500, 9), latencies(500, 10)];
    expect(ratioInterval([a], [b], 50)).toEqual(ratioInterval([a], [b], 50));
    expect(ratioInterval([], [b], 50).every(Number.isNaN)).toBe(true);
    expect(ratioInterval([[]], [b], 50).every(Number.isNaN)).toBe(true);
  });
});

describe('a target row with its interval', () => {
  const target = { name: 'gateway echo p50 ÷ the best proxy', measured: 0.98, baseline: 1, unit: 'ms', holdsWhen: 'at-most' as const, limit: 1 };

  it('says when the limit is within the run\'s noise', () => {
    const row = targetRow({ ...target, interval: [0.95, 1.02] }, 0.98, true);
    expect(row).toContain('95 % interval 0.95–1.02×');
    expect(row).toContain('the limit is within this run\'s noise');
  });

  it('says nothing of noise when the whole interval is on one side of the limit', () => {
    const row = targetRow({ ...target, interval: [0.9, 0.97] }, 0.98, true);
    expect(row).toContain('95 % interval 0.90–0.97×');
    expect(row).not.toContain('noise');
  });
});
