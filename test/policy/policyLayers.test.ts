import { writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyEngine } from '../../main/policy/policyEngine';
import { describePolicyProblem } from '../../shared/policy';
import { trustProjectFile } from '../../main/policy/projectTrust';
import { decideCall, decideShell, policyEngine, policyFolders, writePolicy, type PolicyFolders } from './policyFixture';

let folders: PolicyFolders;
let engine: PolicyEngine | undefined;

beforeEach(() => {
  folders = policyFolders();
});
afterEach(() => {
  engine?.close();
  engine = undefined;
  folders.remove();
});

describe('layers', () => {
  it('deny beats ask beats allow across layers, whichever layer holds them', async () => {
    writePolicy(folders.managed, { deny: [{ rule: 'shell_exec(git push *)', reason: 'pushes need review' }] });
    writePolicy(folders.user, { allow: ['shell_exec(git push *)', 'shell_exec(git status)'], ask: ['write_file'] });
    writePolicy(folders.project, { allow: ['shell_exec(git push origin main)', 'write_file(src/**)'] });
    trustProjectFile(folders.home, folders.project);
    engine = await policyEngine(folders);
    const pushed = await decideShell(engine, 'git push origin main');
    expect(pushed.decision).toBe('deny');
    expect(pushed.provenance).toMatchObject({ source: { layer: 'managed', file: folders.managed, line: 4 }, reason: 'pushes need review' });
    expect(pushed.reason).toBe(`denied by \`shell_exec(git push *)\`, managed policy line 4 (${folders.managed}): pushes need review (matched "git push origin main")`);
    const asked = await decideCall(engine, 'write_file', { path: 'src/a.ts', content: '' });
    expect(asked.decision).toBe('ask');
    expect(asked.rule).toBe(`write_file (user policy line 7 (${folders.user}))`);
    expect((await decideShell(engine, 'git status')).decision).toBe('allow');
  });

  it('falls back to the tier default where no rule matches', async () => {
    engine = await policyEngine(folders);
    const decided = await decideCall(engine, 'write_file', { path: 'a.txt', content: '' });
    expect(decided).toMatchObject({ decision: 'ask', rule: 'tier:ELEVATED→ask', mode: 'standard' });
    expect(decided.provenance).toBeUndefined();
    expect((await decideCall(engine, 'calculator', { expression: '1+1' })).decision).toBe('allow');
  });

  it('ignores a project file until it is trusted, and again after it changes', async () => {
    writePolicy(folders.project, { allow: ['write_file(src/**)'] });
    engine = await policyEngine(folders);
    const write = () => decideCall(engine!, 'write_file', { path: 'src/a.ts', content: '' });
    expect((await write()).decision).toBe('ask');
    expect(engine.status().notices.join(' ')).toContain('is not trusted');
    trustProjectFile(folders.home, folders.project);
    await engine.reload();
    expect((await write()).decision).toBe('allow');
    writePolicy(folders.project, { allow: ['write_file(src/**)', 'shell_exec'] });
    await engine.reload();
    expect((await write()).decision).toBe('ask');
  });

  it('session grants and --grant rules allow, with their provenance', async () => {
    engine = await policyEngine(folders, { flagRules: ['shell_exec(make test)'] });
    expect((await decideShell(engine, 'make test')).provenance?.source).toEqual({ layer: 'flag' });
    await engine.grantSession('write_file(notes.md)', 'approval-1');
    const decided = await decideCall(engine, 'write_file', { path: 'notes.md', content: '' });
    expect(decided.decision).toBe('allow');
    expect(decided.reason).toContain('a session grant (approval approval-1)');
    engine.revokeSession('approval-1');
    expect((await decideCall(engine, 'write_file', { path: 'notes.md', content: '' })).decision).toBe('ask');
  });

  it('a --grant rule that cannot be read refuses the start', async () => {
    await expect(policyEngine(folders, { flagRules: ['shell_exec(git status'] })).rejects.toThrow(/--grant shell_exec\(git status: .*closing parenthesis/);
  });
});

describe('a refused file fails closed', () => {
  it.each([
    ['not JSON', '{\n  "allow": [\n    "read_file",\n  ]\n}', 4, /not JSON/, false],
    ['an unknown key', '{\n  "allow": [],\n  "alow": ["read_file"]\n}', 3, /alow/, false],
    ['an unknown tool', '{\n  "allow": ["read_file",\n    "rm_everything"]\n}', 3, /"rm_everything" is not a tool/, true],
    ['a malformed specifier', '{\n  "allow": [\n    "read_file", "shell_exec(git status; rm -rf /)"\n  ]\n}', 3, /not one plain command/, true],
    ['a bare / path', '{"allow": ["read_file(/etc/**)"]}', 1, /single \//, true],
    ['a failing example', '{\n "allow": [\n  "read_file", {"rule": "shell_exec(ls *)", "examples": {"notMatch": ["lsof"], "match": ["ls -la", "cat x"]}}\n ]\n}', 3, /does not match its example "cat x"/, true],
  ])('%s: every call it could have allowed asks, and the problem names file and line', async (_what, text, line, problem, scoped) => {
    writePolicy(folders.user, text);
    engine = await policyEngine(folders);
    const [refused] = engine.status().problems;
    expect(refused).toMatchObject({ layer: 'user', file: folders.user, line });
    expect(refused!.problem).toMatch(problem);
    expect(refused!.fix.length).toBeGreaterThan(10);
    const decided = await decideCall(engine, 'read_file', { path: 'a.txt' });
    expect(decided.decision).toBe('ask');
    expect(decided.rule).toBe('policy-file-refused');
    expect(decided.reason).toContain(folders.user);
    // Entries readable as far as their tools limit the refusal to those tools; otherwise every allow asks.
    expect((await decideCall(engine, 'echo', { text: 'x' })).decision).toBe(scoped ? 'allow' : 'ask');
  });

  it('lists every fault of a file, each at its own line and column, with the key a misspelt one is near', async () => {
    const lines = ['{', '  "allow": [', '    "read_file",', '    "echo"', '  ],', '  "ask": [', '    "write_fil(src/**)"', '  ],', '  "deny": [{"rule": "shell_exec(rm *)", "reasn": "x"}],', '  "deyn": ["shell_exec(rm *)"],', '  "allow_": []', '}'];
    writePolicy(folders.user, lines.join('\n'));
    engine = await policyEngine(folders);
    const at = (word: string) => {
      const line = lines.findIndex((text) => text.includes(word));
      return { line: line + 1, column: lines[line]!.indexOf(word) + 1 };
    };
    const problems = engine.status().problems;
    expect(problems).toEqual([
      expect.objectContaining({ ...at('"reasn"'), problem: '"deny.0" has the unknown key "reasn"', fix: expect.stringMatching(/^did you mean "reason"\?/) }),
      expect.objectContaining({ ...at('"deyn"'), problem: 'the unknown key "deyn"', fix: expect.stringMatching(/^did you mean "deny"\?/) }),
      expect.objectContaining({ ...at('"allow_"'), problem: 'the unknown key "allow_"', fix: expect.stringMatching(/^did you mean "allow"\?/) }),
      expect.objectContaining({ ...at('"write_fil'), problem: expect.stringContaining('"write_fil" is not a tool') }),
    ]);
    expect(describePolicyProblem(problems[1]!)).toBe(`${folders.user} line 10, column 3: the unknown key "deyn". Fix: ${problems[1]!.fix}`);
  });

  it('checks examples both ways and loads a rule whose examples agree', async () => {
    writePolicy(folders.user, { allow: [{ rule: 'shell_exec(ls *)', reason: 'listing is harmless', examples: { match: ['ls', 'ls -la src'], notMatch: ['lsof', 'ls; rm -rf x', 'ls $(rm x)'] } }] });
    engine = await policyEngine(folders);
    expect(engine.status().problems).toEqual([]);
    const decided = await decideShell(engine, 'ls src');
    expect(decided.reason).toContain('listing is harmless');
    expect(decided.rule).toBe(`shell_exec(ls *) (user policy line 4 (${folders.user})): listing is harmless`);
  });

  it('reloads a changed file atomically: broken asks, fixed allows again', async () => {
    writePolicy(folders.user, { allow: ['write_file(src/**)'] });
    engine = await policyEngine(folders);
    engine.watch();
    const write = () => decideCall(engine!, 'write_file', { path: 'src/a.ts', content: '' });
    expect((await write()).decision).toBe('allow');
    const changed = new Promise<void>((resolve) => engine!.onChange(resolve));
    writeFileSync(folders.user, '{"allow": ["write_file(src/**)"');
    await changed;
    expect(engine.status().problems).toHaveLength(1);
    expect((await write()).decision).toBe('ask');
  });
});

describe('modes', () => {
  it('strict asks above SAFE and ignores project allows', async () => {
    writePolicy(folders.user, { allow: ['read_file'] });
    writePolicy(folders.project, { allow: ['list_dir'], deny: ['calculator'] });
    trustProjectFile(folders.home, folders.project);
    engine = await policyEngine(folders, { mode: 'strict' });
    expect((await decideCall(engine, 'read_file', { path: 'a' })).decision).toBe('ask');
    expect((await decideCall(engine, 'read_file', { path: 'a' })).mode).toBe('strict');
    expect((await decideCall(engine, 'list_dir', {})).decision).toBe('allow');
    expect((await decideCall(engine, 'calculator', { expression: '1' })).decision).toBe('deny');
    expect((await decideCall(engine, 'echo', { text: 'x' })).decision).toBe('allow');
  });

  it('permissive lets ELEVATED work in the workspace run, never protected paths, the network or RESTRICTED', async () => {
    engine = await policyEngine(folders, { mode: 'permissive' });
    expect((await decideCall(engine, 'write_file', { path: 'src/a.ts', content: '' })).decision).toBe('allow');
    expect((await decideCall(engine, 'write_file', { path: '.vscode/tasks.json', content: '' })).decision).toBe('ask');
    expect((await decideCall(engine, 'http_fetch', { url: 'https://example.com/' })).decision).toBe('ask');
    expect((await decideCall(engine, 'delete_path', { path: 'build', recursive: true })).decision).toBe('ask');
    expect((await decideShell(engine, 'ls')).decision).toBe('ask');
  });
});
