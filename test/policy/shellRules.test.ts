import { beforeEach, describe, expect, it } from 'vitest';
import { decideShell, useUserPolicy } from './policyFixture';

const policy = useUserPolicy();
const withUserPolicy = policy.withUserPolicy;

describe('shell allow rules match every sub-command or nothing', () => {
  beforeEach(async () => {
    await withUserPolicy({ allow: ['shell_exec(git status)', 'shell_exec(npm run test *)', 'shell_exec(ls *)', 'shell_exec(echo *)'] });
  });

  it('lets a matching line run', async () => {
    expect((await decideShell(policy.engine(), 'git status')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'npm run test -- --watch=false')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'git status && ls -la')).decision).toBe('allow');
  });

  it('names the rule, its layer, file and line on an allow', async () => {
    const decided = await decideShell(policy.engine(), 'npm run test unit');
    expect(decided.provenance).toMatchObject({ rule: 'shell_exec(npm run test *)', effect: 'allow', source: { layer: 'user', file: policy.folders().user, line: 4 }, matched: 'npm run test unit' });
  });

  it.each([
    ['git status; rm -rf x'],
    ['git status && rm -rf x'],
    ['git status || rm -rf x'],
    ['git status | sh'],
    ['git status & rm -rf x'],
    ['git status\nrm -rf x'],
  ])('chaining: %j is not allowed', async (line) => {
    expect((await decideShell(policy.engine(), line)).decision).toBe('ask');
  });

  it.each([['git status $(rm -rf x)'], ['echo `rm -rf x`'], ['ls <(rm -rf x)'], ['{ git status; rm -rf x; }'], ['(git status; rm -rf x)']])(
    'nesting: %j is not allowed',
    async (line) => {
      expect((await decideShell(policy.engine(), line)).decision).toBe('ask');
    },
  );

  it.each([['sudo git status'], ['env git status'], ['xargs git status'], ['find . -exec git status ;'], ['sh -c "git status"'], ['bash -c "ls"'], ['eval git status'], ['command git status'], ['exec git status']])(
    'wrappers it cannot vouch for: %j is not allowed',
    async (line) => {
      expect((await decideShell(policy.engine(), line)).decision).toBe('ask');
    },
  );

  it('looks through harmless wrappers', async () => {
    expect((await decideShell(policy.engine(), 'timeout 5 git status')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'nice -n 5 git status')).decision).toBe('allow');
  });

  it.each([['PATH=. git status'], ['LD_PRELOAD=/tmp/x.so git status'], ['GIT_DIR=/elsewhere git status'], ['NODE_OPTIONS=--require=x npm run test']])(
    'environment prefixes: %j is not allowed',
    async (line) => {
      expect((await decideShell(policy.engine(), line)).decision).toBe('ask');
    },
  );

  it('allows a short safe list of prefixes', async () => {
    expect((await decideShell(policy.engine(), 'LANG=C git status')).decision).toBe('allow');
  });

  it('matches at a word boundary: ls * never matches lsof', async () => {
    expect((await decideShell(policy.engine(), 'lsof -i')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'ls')).decision).toBe('allow');
  });

  it('without * the match is exact', async () => {
    expect((await decideShell(policy.engine(), 'git status --porcelain')).decision).toBe('ask');
  });

  it('interpreters fed code are never allowed by a prefix rule', async () => {
    await withUserPolicy({ allow: ['shell_exec(python3 *)', 'shell_exec(node *)'] });
    expect((await decideShell(policy.engine(), 'python3 -c "import os"')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'python3 <<EOF\nimport os\nEOF')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'node -e 1')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'python3 script.py')).decision).toBe('allow');
  });

  it('an unreadable line is never allowed', async () => {
    await withUserPolicy({ allow: ['shell_exec'] });
    const decided = await decideShell(policy.engine(), 'git status (((');
    expect(decided.decision).not.toBe('allow');
  });
});

describe('shell deny rules', () => {
  beforeEach(async () => {
    await withUserPolicy({
      allow: ['shell_exec', 'shell_exec(echo *)', 'shell_exec(git push --dry-run)'],
      deny: [{ rule: 'shell_exec(rm -rf *)', reason: 'recursive deletes need review' }, { rule: 'shell_exec(git push *)', reason: 'pushes need review' }],
    });
  });

  it.each([['rm -rf build'], ['rm -fr build'], ['rm -r -f build'], ['rm --recursive --force build'], ['rm -R -f build'], ['/bin/rm -rf build'], ['"r"m -rf build']])(
    'flag spellings: %j is denied',
    async (line) => {
      const decided = await decideShell(policy.engine(), line);
      expect(decided.decision).toBe('deny');
      expect(decided.reason).toContain('recursive deletes need review');
    },
  );

  it.each([['sudo rm -rf /'], ['timeout 5 rm -rf x'], ['nice rm -rf x'], ['env X=1 rm -rf x'], ['LD_PRELOAD=x.so rm -rf x'], ['PATH=. rm -rf x'], ['nohup rm -rf x &']])(
    'wrappers and prefixes are stripped for deny: %j',
    async (line) => {
      expect((await decideShell(policy.engine(), line)).decision).toBe('deny');
    },
  );

  it('one denied sub-command denies the line', async () => {
    const decided = await decideShell(policy.engine(), 'echo hi && git push origin main');
    expect(decided.decision).toBe('deny');
    expect(decided.reason).toContain('denied by `shell_exec(git push *)`');
    expect(decided.reason).toContain(`user policy line`);
    expect(decided.provenance?.matched).toBe('git push origin main');
  });

  it('an allow for git push --dry-run never carves into the deny of git push', async () => {
    expect((await decideShell(policy.engine(), 'git push --dry-run')).decision).toBe('deny');
  });

  it('sees options before the subcommand: git -C . push', async () => {
    expect((await decideShell(policy.engine(), 'git -C . push origin')).decision).toBe('deny');
  });

  it('leaves other commands to the allow', async () => {
    expect((await decideShell(policy.engine(), 'rm build/a.o')).decision).toBe('allow');
  });
});

describe('a literal * in a saved command', () => {
  it('\\* matches a star, not anything', async () => {
    await withUserPolicy({ allow: ['shell_exec(rm \\*)', 'shell_exec(ls *.txt)'] });
    expect((await decideShell(policy.engine(), "rm '*'")).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'rm -rf /')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'rm *')).decision).toBe('ask');
    expect((await decideShell(policy.engine(), 'ls a.txt')).decision).toBe('ask');
  });
});
