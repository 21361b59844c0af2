// A reporter that closes every vitest run with two things a person should see without asking:
//   - the tests skipped because this machine lacks what they need (bubblewrap, a name that resolves
//     to a private address, a POSIX file mode…). The suite has no other skips, so each is a security
//     guard untested here; with CI=true the run fails while any is left, as CI's machine has all of them.
//   - the 10 slowest test files, so a file that grows slow is noticed the day it does.
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

/** How many of the slowest files the summary names. */
const SLOWEST_SHOWN = 10;

/** One skipped test, named by file and suite so a person can find the guard and what it needs. */
interface UntestedGuard {
  file: string;
  suite: string;
  test: string;
  note: string | undefined;
}

/** The whole time a test file took: its environment, import and collection, then its tests and hooks. */
function fileSeconds(module: TestModule): number {
  const d = module.diagnostic();
  return (d.environmentSetupDuration + d.prepareDuration + d.collectDuration + d.setupDuration + d.duration) / 1000;
}

/** The names of the suites a test sits in, outermost first. */
function suitePath(test: TestCase): string {
  const names: string[] = [];
  for (let parent = test.parent; parent.type === 'suite'; parent = parent.parent) names.unshift(parent.name);
  return names.join(' › ') || '(top level)';
}

/** Whether a suite around the test (or its file) failed: its tests are then skipped for that failure, which the run reports. */
function skippedForAFailure(test: TestCase): boolean {
  for (let parent: TestCase['parent'] | TestModule = test.parent; ; parent = parent.parent) {
    if (parent.state() === 'failed') return true;
    if (parent.type === 'module') return false;
  }
}

/** Every test of a run skipped for want of what it needs (not for a failing setup), with where it is and why. */
export function untestedGuards(modules: ReadonlyArray<TestModule>): UntestedGuard[] {
  const skipped: UntestedGuard[] = [];
  for (const module of modules) {
    for (const test of module.children.allTests('skipped')) {
      if (skippedForAFailure(test)) continue;
      const result = test.result();
      skipped.push({ file: module.relativeModuleId, suite: suitePath(test), test: test.name, note: result.state === 'skipped' ? result.note : undefined });
    }
  }
  return skipped;
}

/** The lines of the summary: the untested guards (or that there are none) and the slowest files. */
export function summaryLines(modules: ReadonlyArray<TestModule>): { lines: string[]; untested: number } {
  const guards = untestedGuards(modules);
  const lines: string[] = [];
  if (guards.length === 0) {
    lines.push('Security guards untested on this machine: 0');
  } else {
    lines.push(`${guards.length} security guard test${guards.length === 1 ? '' : 's'} untested on this machine (skipped: the machine lacks what they need):`);
    const groups = new Map<string, UntestedGuard[]>();
    for (const guard of guards) groups.set(`${guard.file} › ${guard.suite}`, [...(groups.get(`${guard.file} › ${guard.suite}`) ?? []), guard]);
    for (const [where, tests] of groups) {
      const notes = [...new Set(tests.map((test) => test.note).filter(Boolean))];
      lines.push(`  - ${where}: ${tests.length === 1 ? tests[0]!.test : `${tests.length} tests`}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`);
    }
  }
  const slowest = [...modules].sort((a, b) => fileSeconds(b) - fileSeconds(a)).slice(0, SLOWEST_SHOWN);
  lines.push(`The ${slowest.length} slowest test file${slowest.length === 1 ? '' : 's'}:`);
  for (const module of slowest) lines.push(`  ${fileSeconds(module).toFixed(1).padStart(6)} s  ${module.relativeModuleId}`);
  return { lines, untested: guards.length };
}

/** Prints the summary after vitest's own, and fails a CI run that left a guard untested. */
export default class RunSummaryReporter implements Reporter {
  private vitest: Vitest | undefined;

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    if (modules.length === 0) return;
    // A name filter (-t) skips every test it does not name: those are not guards this machine lacks.
    if (this.vitest?.config.testNamePattern) {
      console.log('\n(a test name filter is on: skipped tests are not counted as untested guards)');
      return;
    }
    const { lines, untested } = summaryLines(modules);
    console.log(`\n${lines.join('\n')}`);
    if (untested > 0 && process.env.CI === 'true') {
      console.error(`CI: ${untested} security guard test${untested === 1 ? ' was' : 's were'} skipped; CI's machine must have what every guard needs (see above)`);
      process.exitCode = 1;
    }
  }
}
