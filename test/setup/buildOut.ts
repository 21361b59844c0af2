// The test run's global setup: many tests run the built bundle in out/ (the hook, the CLI, tool
// processes, the sandbox), so a run first builds it when a source is newer, with the same check
// `npm install` uses. `npm test` has just built, so the check finds it fresh and does not build twice.
import type { TestProject } from 'vitest/node';
import { buildIfStale, buildState } from '../../scripts/build-if-stale.mjs';

/** What the setup found and did, handed to the tests that check the bundle under test is current. */
export interface OutBuildCheck {
  /** Whether the setup ran electron-vite because out/ was stale or missing. */
  builtNow: boolean;
  /** The oldest entry of out/ after the setup, as a modification time in ms. */
  builtMs: number;
  /** The newest source or config file when the setup checked. */
  changedMs: number;
  /** Whether out/ was still older than a source after the setup (never, unless the check is broken). */
  stale: boolean;
}

declare module 'vitest' {
  export interface ProvidedContext {
    outBuild: OutBuildCheck;
  }
}

/** Builds out/ when stale before any test file runs, and provides what it found to the tests. */
export default function setup(project: TestProject): void {
  const builtNow = buildIfStale();
  project.provide('outBuild', { builtNow, ...buildState() });
}
