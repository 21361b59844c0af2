// Types of build-if-stale.mjs for the test setup that runs the same check before every test run.

/** Everything a build reads: a change to any of these makes out/ stale. */
export const SOURCES: readonly string[];
/** Every entry a build writes: a missing one makes out/ stale. */
export const OUTPUTS: readonly string[];
/** When out/ was built (its oldest entry, 0 when one is missing) and when a source last changed, under a project root. */
export function buildState(projectRoot?: string): { builtMs: number; changedMs: number; stale: boolean };
/** Builds out/ with electron-vite when a source is newer than it (or an entry is missing); returns whether it built. */
export function buildIfStale(projectRoot?: string): boolean;
