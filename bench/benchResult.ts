import { spawn, type ChildProcess } from 'node:child_process';
import { toolgateRoot } from '../main/state/paths';

/** One line of the bench table: what was timed and each sample, in milliseconds. */
export interface BenchRow {
  label: string;
  samples: number[];
}

/** One section of the bench table. */
export interface BenchSection {
  title: string;
  rows: BenchRow[];
  /** Lines printed under the rows (what was skipped, what a difference means). */
  notes: string[];
  /** Pairs of row labels whose p50/p99 difference is printed: [measured, baseline]. */
  differences?: [measured: string, baseline: string][];
  /** The promises this section checks, printed with their baseline, ratio and whether they hold. */
  targets?: BenchTarget[];
}

/** The p-th percentile of samples (ms), as the printed table takes it. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

/** Times `count` sequential runs of `once`, pushing each duration (ms) into `samples` when given. */
export async function timeSequential(count: number, once: (i: number) => Promise<unknown>, samples?: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await once(i);
    samples?.push(performance.now() - started);
  }
}

/**
 * A promise the bench checks: a measured number against a limit, either as a ratio to a baseline
 * measured in the same run (`baseline` given) or as an absolute value.
 */
export interface BenchTarget {
  /** What is promised, as a person reads it: "echo over MCP, p50, gate ÷ bare MCP server". */
  name: string;
  /** The measured number (ms, calls/s, MB…). */
  measured: number;
  /** The same measurement of the baseline, in the same run; the target is then on measured ÷ baseline. */
  baseline?: number;
  /** The unit of measured and baseline: "ms", "calls/s", "MB", "records/s". */
  unit: string;
  /** `at-most`: the number (or ratio) must be ≤ limit; `at-least`: ≥ limit. */
  holdsWhen: 'at-most' | 'at-least';
  /** The limit on the ratio (baseline given) or on the number itself. */
  limit: number;
  /** For a target measured as a difference (measured − baseline ≤ limit) rather than a ratio. */
  difference?: boolean;
  /** For a limit on the number itself, with the baseline and ratio printed beside it for comparison only. */
  absolute?: boolean;
  /** For a ratio of two percentiles: where the ratio lies with 95 % confidence, from the samples (ratioInterval). */
  interval?: readonly [low: number, high: number];
}

/** Resamples ratioInterval draws: enough for the 2.5th and 97.5th percentiles to move by well under 1 %. */
const RESAMPLES = 2000;

/**
 * Samples of one server, grouped by the process that answered them: each process of the same
 * server has a speed of its own (what its JIT compiled, where its memory landed), so a run that
 * starts several counts them as several draws.
 */
export type ProcessSamples = readonly (readonly number[])[];

/**
 * Where the ratio of the p-th percentiles of two servers' samples (measured ÷ baseline) lies with
 * 95 % confidence: a two-level percentile bootstrap, RESAMPLES times over. Each side's processes are
 * drawn with replacement, then each drawn process's samples, so the interval holds both the calls'
 * noise and the processes' differences (one process per server gives only the former). It tells a
 * ratio that holds by a margin from one that the run's noise could put on either side of its limit.
 * The draws come from a fixed seed: the same samples always give the same interval. Written here:
 * the statistics packages on npm have a quantile and a resampler, but no interval of a ratio of two.
 */
export function ratioInterval(measured: ProcessSamples, baseline: ProcessSamples, p: number, resamples = RESAMPLES): [number, number] {
  const [ofMeasured, ofBaseline] = [measured, baseline].map((groups) => new PooledSamples(groups.filter((samples) => samples.length > 0)));
  if (ofMeasured!.empty || ofBaseline!.empty) return [Number.NaN, Number.NaN];
  const random = seededRandom(0x70_6f_6f_6c);
  const ratios = Array.from({ length: resamples }, () => ofMeasured!.resampledPercentile(p, random) / ofBaseline!.resampledPercentile(p, random)).sort((a, b) => a - b);
  return [ratios[Math.floor(0.025 * (resamples - 1))]!, ratios[Math.ceil(0.975 * (resamples - 1))]!];
}

/** Every process's samples in one sorted list, each sample knowing its place there, for resampling by counts. */
class PooledSamples {
  private readonly sorted: number[];
  /** For each process, the places of its samples in `sorted`. */
  private readonly places: Uint32Array[];

  constructor(groups: ProcessSamples) {
    const tagged = groups.flatMap((samples, group) => samples.map((value) => ({ value, group })));
    tagged.sort((a, b) => a.value - b.value);
    this.sorted = tagged.map(({ value }) => value);
    const places = groups.map(() => [] as number[]);
    tagged.forEach(({ group }, place) => places[group]!.push(place));
    this.places = places.map((list) => Uint32Array.from(list));
  }

  get empty(): boolean {
    return this.sorted.length === 0;
  }

  /**
   * The p-th percentile (as percentile() takes it) of one resample: as many processes drawn as there
   * are, then as many samples of each drawn process as it has, the rank found by counting rather
   * than by sorting the draw.
   */
  resampledPercentile(p: number, random: () => number): number {
    const counts = new Uint32Array(this.sorted.length);
    let drawn = 0;
    for (let i = 0; i < this.places.length; i++) {
      const places = this.places[Math.floor(random() * this.places.length)]!;
      for (let j = 0; j < places.length; j++) counts[places[Math.floor(random() * places.length)]!]!++;
      drawn += places.length;
    }
    const rank = Math.min(drawn - 1, Math.floor((p / 100) * drawn));
    let seen = 0;
    for (let i = 0; i < this.sorted.length; i++) {
      seen += counts[i]!;
      if (seen > rank) return this.sorted[i]!;
    }
    return this.sorted.at(-1)!;
  }
}

/** A small deterministic generator (mulberry32): uniform in [0, 1), the same numbers for the same seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** Whether a target holds, and the number it was judged on (the ratio, the difference or the value). */
export function judgeTarget(target: BenchTarget): { judged: number; holds: boolean } {
  const judged =
    target.baseline === undefined || target.absolute ? target.measured : target.difference ? target.measured - target.baseline : target.measured / target.baseline;
  return { judged, holds: target.holdsWhen === 'at-most' ? judged <= target.limit : judged >= target.limit };
}

/** Starts a Node script of this checkout and waits until its stdout matches `ready` (e.g. `toolgate serve` printing its URLs). */
export function startScript(script: string, args: string[], env: Record<string, string>, ready: RegExp, nodeFlags: readonly string[] = []): Promise<{ child: ChildProcess; match: RegExpExecArray }> {
  const child = spawn(process.execPath, [...nodeFlags, script, ...args], { cwd: toolgateRoot(), env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = ready.exec(out);
      if (match) resolve({ child, match });
    });
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before it was ready:\n${out}`)));
  });
}
