/** Percentiles and mean of a list of milliseconds. */
export function summarize(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
  const mean = sorted.reduce((sum, value) => sum + value, 0) / sorted.length;
  return { n: sorted.length, p50: at(50), p95: at(95), p99: at(99), mean, max: sorted[sorted.length - 1] };
}

const LABEL = 52;
const ms = (value) => `${value.toFixed(3).padStart(9)} ms`;

/** One line of the results table. */
export function row(label, stats) {
  return `  ${label.padEnd(LABEL)} n=${String(stats.n).padStart(5)}  p50 ${ms(stats.p50)}  p95 ${ms(stats.p95)}  p99 ${ms(stats.p99)}  mean ${ms(stats.mean)}`;
}

/** A line comparing two rows: how much slower `measured` is than `baseline` at p50 and p99. */
export function differenceRow(label, measured, baseline) {
  const signed = (value) => `${value >= 0 ? '+' : '-'}${Math.abs(value).toFixed(3)} ms`;
  return `  ${label.padEnd(LABEL)}          p50 ${signed(measured.p50 - baseline.p50).padStart(12)}  p99 ${signed(measured.p99 - baseline.p99).padStart(12)}`;
}

/** A section title of the results table. */
export function heading(title) {
  return `\n${title}`;
}

const number = (value) => (Math.abs(value) >= 100 ? value.toFixed(0) : Math.abs(value) >= 10 ? value.toFixed(1) : value.toFixed(3));

/**
 * One target line: what is promised, the measured number, its baseline from the same run, the ratio
 * (or difference) and whether it holds. `judged` is from judgeTarget (bench/benchResult.ts).
 */
export function targetRow(target, judged, holds) {
  const measured = `${number(target.measured)} ${target.unit}`;
  const sign = target.holdsWhen === 'at-most' ? '≤' : '≥';
  const against =
    target.baseline === undefined
      ? `limit ${sign} ${number(target.limit)} ${target.unit}`
      : target.absolute
        ? `baseline ${number(target.baseline)} ${target.unit}, ratio ${(target.measured / target.baseline).toFixed(2)}× (limit ${sign} ${number(target.limit)} ${target.unit})`
      : target.difference
        ? `baseline ${number(target.baseline)} ${target.unit}, difference ${number(judged)} ${target.unit} (limit ${sign} ${number(target.limit)})`
        : `baseline ${number(target.baseline)} ${target.unit}, ratio ${judged.toFixed(2)}× (limit ${sign} ${target.limit}×)${intervalText(target)}`;
  return `  ${holds ? 'HOLDS ' : 'MISSES'}  ${target.name}: ${measured}; ${against}`;
}

/** A ratio's 95 % interval, and whether this run's noise reaches across the limit. */
function intervalText(target) {
  if (!target.interval) return '';
  const [low, high] = target.interval;
  const straddles = low <= target.limit && target.limit <= high;
  return `, 95 % interval ${low.toFixed(2)}–${high.toFixed(2)}×${straddles ? ': the limit is within this run\'s noise' : ''}`;
}
