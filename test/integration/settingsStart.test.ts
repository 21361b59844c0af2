/**
 * Both shells start from $TOOLGATE_HOME/settings.json; a bad file stops `toolgate serve` before
 * anything starts, naming the file, the field and the fix, and leaves the file as it was.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempDirs, runCli, spawnServe, type TempDirs } from './helpers';

let dirs: TempDirs;
beforeEach(() => {
  dirs = makeTempDirs();
});
afterEach(() => dirs.remove());

const BAD_FILES: { case: string; text: string; says: RegExp }[] = [
  { case: 'not JSON', text: '{"workspace": "/tmp",}', says: /is not JSON at line 1, column \d+.*Fix: write one JSON object/ },
  { case: 'an unknown key', text: '{"aprovalTimeoutSeconds": 60}', says: /"aprovalTimeoutSeconds" is not a setting.*did you mean "approvalTimeoutSeconds"\?/ },
  { case: 'a wrong type', text: '{"pool": "four"}', says: /"pool" .*Fix: a whole number from 1 to 64/ },
  { case: 'a workspace that does not exist', text: '{"workspace": "/nonexistent/toolgate/project"}', says: /"workspace" is \/nonexistent\/toolgate\/project, which is not an existing folder.*mkdir -p/ },
];

describe('toolgate serve with a bad settings.json', () => {
  it.each(BAD_FILES)('refuses $case: exit 2, the file, the field and the fix; nothing starts and the file is kept', async ({ text, says }) => {
    const file = join(dirs.home, 'settings.json');
    writeFileSync(file, text);
    // No --workspace: a half-configured gate must not start on the current folder instead.
    const run = await runCli(['serve', '--port', '0'], dirs.home);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(file);
    expect(run.stderr).toMatch(says);
    expect(run.stderr).toContain('Toolgate did not start; the file was not changed.');
    expect(run.stdout).not.toContain('is running');
    expect(existsSync(join(dirs.home, 'gate.json'))).toBe(false);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });
});

describe('toolgate serve with a good settings.json', () => {
  it('takes the workspace, grants and approval timeout from it, flags over it, and prints them in force', async () => {
    writeFileSync(join(dirs.home, 'settings.json'), JSON.stringify({ workspace: dirs.workspace, grants: ['net:read:docs.python.org'], approvalTimeoutSeconds: 90, pool: 3 }));
    const serve = await spawnServe(dirs, ['--approval-timeout', '45']);
    try {
      expect(serve.stdout()).toMatch(/grants\s+fs:read, fs:write, net:read:docs\.python\.org/);
      expect(serve.stdout()).toMatch(/approvals\s+a prompt waits 45 s for you/);
      expect(serve.stdout()).toContain(`settings   ${join(dirs.home, 'settings.json')}`);
    } finally {
      await serve.stop();
    }
  });
});
