// Types of stats.mjs for the TypeScript bench sections, so their targets use the same percentiles as the table.

/** Percentiles and mean of a list of milliseconds. */
export function summarize(samples: readonly number[]): { n: number; p50: number; p95: number; p99: number; mean: number; max: number };

/** One target line of the table: measured, baseline, ratio (with its interval when given), and whether it holds. */
export function targetRow(target: import('./benchResult').BenchTarget, judged: number, holds: boolean): string;
