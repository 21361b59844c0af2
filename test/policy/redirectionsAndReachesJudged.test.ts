/**
 * The parts of a call beyond its own arguments, as the policy engine judges them: a shell line's
 * redirections (judged by read_file or write_file rules, and by every deny or ask of their access),
 * the files a command's arguments reach, a fetch's URL, an upstream tool's arguments and paths, and a
 * tool that both fetches and reads a file. Each case is a call whose decision, or whose named rule,
 * matched part or resolved path, turns on one of those parts being judged right.
 */
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_BOUNDS, type ToolManifest } from '../../shared/manifest';
import { unlistedUpstream } from '../../main/policy/compiledRule';
import { PolicyEngine } from '../../main/policy/policyEngine';
import { builtinLookup, decideCall, decideShell, useUserPolicy, writePolicy } from './policyFixture';

const policy = useUserPolicy();
const withUserPolicy = policy.withUserPolicy;

/** Files in the workspace: a secrets folder, a link to it, a git folder, a dotfile, a plain file. */
function workspaceFiles(): string {
  const workspace = policy.folders().workspace;
  mkdirSync(join(workspace, 'secrets'));
  writeFileSync(join(workspace, 'secrets', 'key'), 'k');
  symlinkSync('secrets', join(workspace, 'link'));
  mkdirSync(join(workspace, '.git'));
  writeFileSync(join(workspace, '.git', 'config'), '');
  writeFileSync(join(workspace, '.aaa'), '');
  writeFileSync(join(workspace, 'notes'), '');
  return workspace;
}

describe('a redirection is judged as the file access it is', () => {
  it('a read redirection needs a read_file allow, not a write_file one', async () => {
    workspaceFiles();
    await withUserPolicy({ allow: ['shell_exec(cat *)', 'read_file'] });
    expect((await decideShell(policy.engine(), 'cat < notes')).decision).toBe('allow');
    await withUserPolicy({ allow: ['shell_exec(cat *)', 'write_file'] });
    expect((await decideShell(policy.engine(), 'cat < notes')).decision).toBe('ask');
  });

  it('a deny on reading a path, written for any tool, holds a redirection that reads it', async () => {
    workspaceFiles();
    await withUserPolicy({ allow: ['shell_exec(cat *)', 'read_file'], deny: ['search_files(secrets/**)'] });
    const decided = await decideShell(policy.engine(), 'cat < secrets/key');
    expect(decided.decision).toBe('deny');
    expect(decided.provenance).toMatchObject({ rule: 'search_files(secrets/**)', matched: '< secrets/key' });
  });

  it('reading a protected file by a redirection is not writing it: the allow holds', async () => {
    workspaceFiles();
    await withUserPolicy({ allow: ['shell_exec(cat *)', 'read_file'] });
    expect((await decideShell(policy.engine(), 'cat < .git/config')).decision).toBe('allow');
    await withUserPolicy({ allow: ['shell_exec(echo *)', 'write_file'] });
    expect(await decideShell(policy.engine(), 'echo x > .git/config')).toMatchObject({ decision: 'ask', rule: 'protected:.git' });
  });

  it('a redirection writes the file it names, not what lies below it: a deny on a path below that name does not hold it', async () => {
    workspaceFiles();
    await withUserPolicy({ allow: ['shell_exec(echo *)', 'write_file(**)'], deny: ['write_file(notes/secret.txt)'] });
    expect((await decideShell(policy.engine(), 'echo hi > notes')).decision).toBe('allow');
    expect((await decideShell(policy.engine(), 'echo hi > notes/secret.txt')).decision).toBe('deny');
  });
});

describe('a reason names the part matched and where a path really leads', () => {
  it('through a link, for a path argument, a redirection and a file a command reads', async () => {
    workspaceFiles();
    await withUserPolicy({ deny: ['read_file(secrets/**)'] });
    const cases = [
      [await decideCall(policy.engine(), 'read_file', { path: 'link/key' }), 'link/key'],
      [await decideShell(policy.engine(), 'cat < link/key'), '< link/key'],
      [await decideShell(policy.engine(), 'cat link/key'), 'link/key'],
    ] as const;
    for (const [decided, matched] of cases) {
      expect(decided.decision).toBe('deny');
      expect(decided.provenance?.matched).toBe(matched);
      expect(decided.reason).toContain(`(matched ${JSON.stringify(matched)}, which resolves to secrets/key)`);
    }
    // A path that leads where it reads names no second place.
    const plain = await decideShell(policy.engine(), 'cat secrets/key');
    expect(plain.reason).toContain('(matched "secrets/key")');
  });

  it('a fetch matched by its host names the host, not the whole URL with its query', async () => {
    await withUserPolicy({ deny: ['http_fetch(domain:example.com)'] });
    const decided = await decideCall(policy.engine(), 'http_fetch', { url: 'https://example.com/a?token=x1' });
    expect(decided.decision).toBe('deny');
    expect(decided.provenance?.matched).toBe('example.com');
    expect(decided.reason).not.toContain('token=x1');
  });

  it('a fetch without a URL is no fetch of a host a rule names', async () => {
    await withUserPolicy({ deny: ['http_fetch(domain:example.com)'] });
    expect(await decideCall(policy.engine(), 'http_fetch', {})).toMatchObject({ decision: 'ask', rule: 'tier:ELEVATED→ask' });
  });
});

describe('a protected path among the files a command writes', () => {
  it('asks about a protected folder a glob reaches, though it is not the first match', async () => {
    workspaceFiles();
    await withUserPolicy({ allow: ['shell_exec(rm *)'] });
    expect((await decideShell(policy.engine(), 'rm .aaa')).decision).toBe('allow');
    // `.[ag]*` matches `.aaa` first, then `.git`.
    expect(await decideShell(policy.engine(), 'rm -r .[ag]*')).toMatchObject({ decision: 'ask', rule: 'protected:.git' });
  });
});

/** An upstream server's tool that reads and writes files and runs unasked by its class. */
const FILE_SERVER_TOOL: ToolManifest = { ...unlistedUpstream('files__edit_text'), tier: 'STANDARD', sideEffects: ['FsRead', 'FsWrite'] };

describe('an upstream tool is judged by its own rules and by the paths it is handed', () => {
  it('a bare deny of the tool holds every call of it, whatever its arguments', async () => {
    await withUserPolicy({ deny: ['files__edit_text'] });
    expect(policy.engine().decide(FILE_SERVER_TOOL, { text: 'hello' }).decision).toBe('deny');
  });

  it('a path it is handed that cannot be resolved does not run unasked while a deny on reading paths could hold it', async () => {
    const workspace = workspaceFiles();
    symlinkSync('loop', join(workspace, 'loop'));
    await withUserPolicy({});
    expect(policy.engine().decide(FILE_SERVER_TOOL, { path: 'loop/x' }).decision).toBe('allow');
    // Only reading is guarded; the tool also writes. One guarded access is enough.
    await withUserPolicy({ deny: ['read_file(secrets/**)'] });
    const decided = policy.engine().decide(FILE_SERVER_TOOL, { path: 'loop/x' });
    expect(decided).toMatchObject({ decision: 'ask', rule: 'policy:unreadable' });
    expect(decided.reason).toContain('loop/x: ');
    expect(decided.reason).toContain('a loop of symlinks, and a deny or ask rule on paths might hold it');
    expect(policy.engine().decide(FILE_SERVER_TOOL, { path: 'notes' }).decision).toBe('allow');
  });
});

/** A manifest tool that sends a file it reads to a fixed endpoint: a URL and a path in one call. */
const UPLOADER: ToolManifest = {
  name: 'upload_report',
  version: '1.0.0',
  description: 'sends a report file to the reports service',
  tier: 'ELEVATED',
  sideEffects: ['FsRead', 'NetWrite'],
  determinism: 'NonDeterministic',
  capabilities: [],
  bounds: DEFAULT_BOUNDS,
  pathArguments: ['file'],
  endpoints: ['https://reports.example.com/upload'],
  supportsDryRun: false,
  inputSchema: { type: 'object' },
  outputSchema: {},
};

describe('a tool that both reads a file and fetches a URL', () => {
  const engineWith = async (rules: unknown): Promise<PolicyEngine> => {
    const folders = policy.folders();
    writePolicy(folders.user, rules);
    const engine = await PolicyEngine.create({
      tools: (name) => (name === UPLOADER.name ? UPLOADER : builtinLookup(name)),
      workspace: folders.workspace,
      home: folders.home,
      userHome: folders.userHome,
      managedFile: folders.managed,
    });
    return engine;
  };

  it('takes host rules, by its endpoint; an allow of the host does not vouch for the file it reads', async () => {
    const engine = await engineWith({ allow: ['upload_report(domain:reports.example.com)'] });
    try {
      expect(engine.status().problems).toEqual([]);
      expect(engine.decide(UPLOADER, { file: 'notes' })).toMatchObject({ decision: 'ask', rule: 'tier:ELEVATED→ask' });
    } finally {
      engine.close();
    }
  });

  it('a deny of another host holds nothing of a call to its own endpoint, its file included', async () => {
    const engine = await engineWith({ deny: ['upload_report(domain:other.example.com)'] });
    try {
      expect(engine.decide(UPLOADER, { file: 'notes' })).toMatchObject({ decision: 'ask', rule: 'tier:ELEVATED→ask' });
    } finally {
      engine.close();
    }
  });

  it('a bare allow covers it, its file and its endpoint', async () => {
    const engine = await engineWith({ allow: ['upload_report'] });
    try {
      expect(engine.decide(UPLOADER, { file: 'notes' }).decision).toBe('allow');
    } finally {
      engine.close();
    }
  });
});
