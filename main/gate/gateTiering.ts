import { setFlagsFromString } from 'node:v8';

/**
 * V8 optimizes a function after 300 calls instead of 3,000, and 100 calls after its types last
 * changed instead of 500. Most of the gate's code runs once per call (its pipeline, its record, the
 * HTTP exchange): with V8's defaults it was optimized only after about 4,000 calls, with these
 * within the first few hundred. The same work per call, at its steady speed sooner.
 */
export const TIERING_FLAGS = ['--invocation-count-for-turbofan=300', '--minimum-invocations-after-ic-update=100'] as const;

/**
 * Gives this process the gate's tiering, once the gate is up: its start (loading its modules,
 * compiling its schemas and policy) runs once, and under these it took about 0.5 s more CPU for code
 * no call runs again. V8 reads the thresholds each time it sets a function's budget, so code first
 * run after this is optimized sooner. For `toolgate serve` only: Node lets V8's flags change after
 * start, while an embedder that freezes them (Chromium does) stops the process at such a change, so
 * the desktop app's gate keeps V8's defaults.
 */
export function optimizeSooner(): void {
  setFlagsFromString(TIERING_FLAGS.join(' '));
}
