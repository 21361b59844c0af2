/** Percentiles and mean of a list of milliseconds. */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { n: sorted.length, p50: at(50), p99: at(99), mean, max: sorted[sorted.length - 1] };
}

/** One line of the results table. */
export function row(label, stats) {
  const f = (ms) => `${ms.toFixed(3).padStart(9)} ms`;
  return `${label.padEnd(44)} n=${String(stats.n).padStart(5)}  p50 ${f(stats.p50)}  p99 ${f(stats.p99)}  mean ${f(stats.mean)}`;
}
