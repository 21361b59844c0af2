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
}

/** Times `count` sequential runs of `once`, pushing each duration (ms) into `samples` when given. */
export async function timeSequential(count: number, once: (i: number) => Promise<unknown>, samples?: number[]): Promise<void> {
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await once(i);
    samples?.push(performance.now() - started);
  }
}
