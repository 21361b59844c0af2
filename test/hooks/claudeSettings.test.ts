/** `toolgate hook install|uninstall claude-code` as a person runs it, on a Claude Code settings file that has other settings and hooks. */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shellQuote } from '../../main/tools/shell/shellQuote';
import { CLI, cliEnv, makeTempDirs, type TempDirs } from '../integration/helpers';

/** A settings file as a person keeps it: their own keys, an existing hook, their formatting. */
const THEIRS = `{
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test)"], "deny": ["Read(./.env)"] },
  "hooks": {
    "PostToolUse": [
      { "matcher": "Write|Edit", "hooks": [ { "type": "command", "command": "npx prettier --write \\"$CLAUDE_FILE\\"" } ] }
    ]
  },
  "env": { "FOO": "1" }
}
`;

let dirs: TempDirs | undefined;
afterEach(() => {
  dirs?.remove();
  dirs = undefined;
});

function toolgate(args: string[], home: string) {
  const run = spawnSync(process.execPath, [CLI, ...args], { env: cliEnv(home), encoding: 'utf8' });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('toolgate hook install claude-code', () => {
  it('adds both hooks once, keeps everything else, backs up first, and uninstall restores the file byte for byte', () => {
    dirs = makeTempDirs();
    const project = join(dirs.outside, "it's a project");
    mkdirSync(join(project, '.claude'), { recursive: true });
    const file = join(project, '.claude', 'settings.json');
    writeFileSync(file, THEIRS);

    const installed = toolgate(['hook', 'install', 'claude-code', '--project', project], dirs.home);
    expect(installed.code).toBe(0);
    expect(installed.stdout).toContain('backup');
    const settings = JSON.parse(readFileSync(file, 'utf8'));
    const theirs = JSON.parse(THEIRS);
    expect(settings.model).toBe(theirs.model);
    expect(settings.permissions).toEqual(theirs.permissions);
    expect(settings.env).toEqual(theirs.env);
    expect(settings.hooks.PostToolUse[0]).toEqual(theirs.hooks.PostToolUse[0]);
    const [pre] = settings.hooks.PreToolUse;
    expect(pre).toMatchObject({ matcher: '*', hooks: [{ type: 'command', timeout: 360 }] });
    expect(settings.hooks.PostToolUse[1]).toEqual(pre);
    // No global install needed: this Node and this bin/toolgate.js by absolute path, shell-quoted, with this state folder.
    expect(pre.hooks[0].command).toBe(`TOOLGATE_HOME=${shellQuote(dirs.home)} ${shellQuote(process.execPath)} ${shellQuote(CLI)} hook claude-code`);
    const backups = readdirSync(join(project, '.claude')).filter((name) => /^settings\.json\.toolgate-backup-\d{8}T\d{9}Z$/.test(name));
    expect(backups).toHaveLength(1);
    expect(readFileSync(join(project, '.claude', backups[0]!), 'utf8')).toBe(THEIRS);

    const afterInstall = readFileSync(file, 'utf8');
    const again = toolgate(['hook', 'install', 'claude-code', '--project', project], dirs.home);
    expect(again.stdout).toContain('already installed');
    expect(readFileSync(file, 'utf8')).toBe(afterInstall);

    expect(toolgate(['hook', 'uninstall', 'claude-code', '--project', project], dirs.home).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(THEIRS);
  });

  it('creates the settings file when there is none, and refuses one that is not JSON, naming it', () => {
    dirs = makeTempDirs();
    const created = toolgate(['hook', 'install', 'claude-code', '--project', dirs.workspace, '--timeout', '900'], dirs.home);
    expect(created.code).toBe(0);
    const settings = JSON.parse(readFileSync(join(dirs.workspace, '.claude', 'settings.json'), 'utf8'));
    expect(Object.keys(settings.hooks)).toEqual(['PreToolUse', 'PostToolUse']);
    expect(settings.hooks.PreToolUse[0].hooks[0].timeout).toBe(900);

    const broken = join(dirs.outside, '.claude', 'settings.json');
    mkdirSync(join(dirs.outside, '.claude'));
    writeFileSync(broken, '{ "model": "opus", }');
    const refused = toolgate(['hook', 'install', 'claude-code', '--project', dirs.outside], dirs.home);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${broken} is not a JSON object`);
    expect(readFileSync(broken, 'utf8')).toBe('{ "model": "opus", }');
    expect(toolgate(['hook', 'install', 'cursor'], dirs.home).stderr).toContain('claude-code');

    // A mistyped project folder is refused, and nothing is made there.
    const mistyped = join(dirs.outside, 'no-such-project');
    const typo = toolgate(['hook', 'install', 'claude-code', '--project', mistyped], dirs.home);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain(`--project ${mistyped} is not a folder`);
    expect(existsSync(mistyped)).toBe(false);
  });
  it('keeps every byte of a compact or differently shaped file outside what it adds, and uninstall restores it exactly', () => {
    dirs = makeTempDirs();
    const shapes = [
      '{"hooks":{"Stop":[{"matcher":"*","hooks":[{"type":"command","command":"say done"}]}]},"model":"opus"}',
      '{"model":"opus","hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":"audit.sh"}]}]}}',
      '{"model":"opus"}\n',
      '{\n\t"model": "opus",\n\t"hooks": {\n\t\t"Stop": []\n\t}\n}\n',
    ];
    for (const [i, theirs] of shapes.entries()) {
      const project = join(dirs.outside, `p${i}`);
      mkdirSync(join(project, '.claude'), { recursive: true });
      const file = join(project, '.claude', 'settings.json');
      writeFileSync(file, theirs);
      expect(toolgate(['hook', 'install', 'claude-code', '--project', project], dirs.home).code).toBe(0);
      const installed = readFileSync(file, 'utf8');
      const settings = JSON.parse(installed);
      expect(settings.model, theirs).toBe('opus');
      expect(settings.hooks.PreToolUse.at(-1).hooks[0].command, theirs).toContain('hook claude-code');
      // Nothing reformatted: as many lines as before (each addition stays on the line it joins, or on lines of its own).
      expect(installed.split('\n').length - theirs.split('\n').length, theirs).toBeLessThanOrEqual(2);
      expect(toolgate(['hook', 'uninstall', 'claude-code', '--project', project], dirs.home).code).toBe(0);
      expect(readFileSync(file, 'utf8'), theirs).toBe(theirs);
    }
  });
});
