/**
 * docs/guards.md tells the truth: each security guard it lists names at least one test in process
 * and one through the real gate, each named test exists with that exact title, and none of them is
 * skipped outright. A test that skips itself where the machine lacks what it needs (skipIf) is
 * allowed: the run summary counts it as an untested guard, and CI fails on that count.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../integration/cliProcesses';
import { declaredTests, guardRows, type DeclaredTest, type GuardRow, type NamedTest } from './guardTests';

/** Ways of skipping a test that nothing counts: it would pass the table and test nothing. */
const SILENT_SKIPS = new Set(['skip', 'todo', 'only']);

/**
 * What a file that tests through the real gate uses: a gate started by the integration helpers on a
 * real port (startTestGate, startUnattendedShell) or the official MCP client against one (connectMcp, its transport), a gate
 * or CLI in a process of its own (spawnServe, runCli, the audit fixture's toolgate), the real hook
 * command (runHook), Playwright against `toolgate serve`, or a real process in bubblewrap (detectSandbox).
 */
const REAL_GATE =
  /\b(?:startTestGate|startUnattendedShell|connectMcp|StreamableHTTPClientTransport|connectStdioBridge|spawnServe|runCli|runHook|detectSandbox)\b|import \{[^}]*\btoolgate\b[^}]*\} from '\.\/auditFixture'|@playwright\/test/;

const rows = guardRows(readFileSync(join(ROOT, 'docs/guards.md'), 'utf8'));
const declared = new Map<string, DeclaredTest[] | undefined>();

function testsOf(file: string): DeclaredTest[] | undefined {
  if (!declared.has(file)) declared.set(file, existsSync(join(ROOT, file)) ? declaredTests(join(ROOT, file)) : undefined);
  return declared.get(file);
}

/** What is wrong with a named test, or undefined when it exists, runs and sits in a file of its kind. */
export function namedTestProblem(named: NamedTest, column: 'unit' | 'gate'): string | undefined {
  const tests = testsOf(named.file);
  if (!tests) return `${named.file} does not exist`;
  const found = tests.filter((test) => test.matches(named.title));
  if (found.length === 0) return `${named.file} has no test titled "${named.title}"`;
  const skipped = found.flatMap((test) => test.modifiers).filter((modifier) => SILENT_SKIPS.has(modifier));
  if (skipped.length > 0) return `${named.file} › ${named.title} is marked .${skipped[0]}: it would run nothing, or leave the rest unrun`;
  if (column === 'gate' && !REAL_GATE.test(readFileSync(join(ROOT, named.file), 'utf8'))) {
    return `${named.file} › ${named.title} is listed as through the real gate, but its file starts no real gate, CLI, hook or sandbox`;
  }
  return undefined;
}

function rowProblems(row: GuardRow): string[] {
  const where = `docs/guards.md:${row.line} (${row.guard.slice(0, 60)}…)`;
  const problems: string[] = [];
  if (row.unit.length === 0) problems.push(`${where}: names no test in process`);
  if (row.gate.length === 0) problems.push(`${where}: names no test through the real gate`);
  for (const named of row.unit) {
    const problem = namedTestProblem(named, 'unit');
    if (problem) problems.push(`${where}: ${problem}`);
  }
  for (const named of row.gate) {
    const problem = namedTestProblem(named, 'gate');
    if (problem) problems.push(`${where}: ${problem}`);
    if (row.unit.some((unit) => unit.file === named.file && unit.title === named.title)) problems.push(`${where}: ${named.file} › ${named.title} is in both columns; the two must be independent`);
  }
  return problems;
}

describe('docs/guards.md', () => {
  it('lists the guards, each with a test in process and one through the real gate, every one existing and run', () => {
    expect(rows.length, 'guard rows in docs/guards.md').toBeGreaterThan(40);
    expect(rows.flatMap(rowProblems)).toEqual([]);
  });

  it('is linked from the threat model and the README', () => {
    expect(readFileSync(join(ROOT, 'docs/threat-model.md'), 'utf8')).toContain('](guards.md)');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('](docs/guards.md)');
  });

  it('counts a skipIf test in the run summary: the reporter that does is in the vitest config', () => {
    expect(readFileSync(join(ROOT, 'vitest.config.ts'), 'utf8')).toContain('./test/setup/runSummary.ts');
  });
});

describe('the check of a named test', () => {
  const here = 'test/docs/guardTable.test.ts';
  const fixture = 'test/fixtures/guardTable/skipped.check.ts';

  it('refuses a file that does not exist, a title it does not hold, and a test skipped outright', () => {
    expect(namedTestProblem({ file: 'test/nowhere.test.ts', title: 'x' }, 'unit')).toBe('test/nowhere.test.ts does not exist');
    expect(namedTestProblem({ file: here, title: 'a title nobody wrote' }, 'unit')).toMatch(/has no test titled "a title nobody wrote"/);
    for (const modifier of ['skip', 'todo', 'only']) {
      expect(namedTestProblem({ file: fixture, title: `a guard marked ${modifier}` }, 'unit')).toMatch(new RegExp(`is marked \\.${modifier}`));
    }
    expect(namedTestProblem({ file: fixture, title: 'a guard inside a skipped describe' }, 'unit')).toMatch(/is marked \.skip/);
  });

  it('takes an it.each title as vitest prints it, and a skipIf test as counted', () => {
    expect(namedTestProblem({ file: fixture, title: 'rm -rf "x" is refused' }, 'unit')).toBeUndefined();
    expect(namedTestProblem({ file: fixture, title: 'a guard this machine may lack' }, 'unit')).toBeUndefined();
  });

  it('refuses a test listed as through the real gate in a file that starts none', () => {
    expect(namedTestProblem({ file: fixture, title: 'a guard this machine may lack' }, 'gate')).toMatch(/starts no real gate/);
  });
});
