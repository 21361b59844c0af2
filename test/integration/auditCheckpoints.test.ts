/**
 * `toolgate serve --checkpoint-dir DIR` as a person runs it: the gate signs checkpoints of its audit
 * log into the folder (and a last one when it stops), the console reads their state over the bridge,
 * `audit verify --checkpoint` accepts them, and a folder inside the state folder stops the start.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BridgeClient, connectMcp, makeTempDirs, readConsoleToken, readToken, runCli, spawnServe, type TempDirs } from './helpers';

let dirs: TempDirs;
beforeEach(() => {
  dirs = makeTempDirs();
});
afterEach(() => dirs.remove());

describe('a gate with a checkpoint folder', () => {
  it('signs a checkpoint of every record when it stops, which audit verify --checkpoint accepts, and shows it in the console', async () => {
    const folder = join(dirs.outside, 'checkpoints');
    const serve = await spawnServe(dirs, ['--checkpoint-dir', folder]);
    try {
      expect(serve.stdout()).toContain(`audit      signed checkpoints in ${folder} (every 1000 records or 60 s)`);
      const agent = await connectMcp(serve.mcpUrl, readToken(dirs.home));
      writeFileSync(join(dirs.workspace, 'note.txt'), 'hello');
      const read = await agent.callTool({ name: 'read_file', arguments: { path: 'note.txt' } });
      expect(read.isError).toBeFalsy();
      await agent.close();
      const bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
      try {
        const reply = (await bridge.request('checkpointStatus', {})) as { ok: boolean; value: Record<string, any> };
        expect(reply.ok).toBe(true);
        expect(reply.value.folder).toBe(folder);
        expect(reply.value.verifierKey).toBe((await runCli(['audit', 'key'], dirs.home)).stdout.trim());
        expect(reply.value.latest).toMatchObject({ verified: true, size: expect.any(Number), rootHash: expect.stringMatching(/^[A-Za-z0-9+/]{43}=$/) });
      } finally {
        bridge.close();
      }
    } finally {
      await serve.stop();
    }
    const listed = JSON.parse((await runCli(['audit', 'list', '--limit', '1000', '--json'], dirs.home)).stdout) as unknown[];
    const records = listed.length;
    const checkpointFile = readdirSync(folder).find((name) => /^[0-9a-f]{32}\.checkpoint$/.test(name))!;
    const note = readFileSync(join(folder, checkpointFile), 'utf8');
    expect(note.split('\n')[1]).toBe(String(records));
    const verify = await runCli(['audit', 'verify', '--checkpoint', join(folder, checkpointFile)], dirs.home);
    expect(verify.code).toBe(0);
    expect(verify.stdout).toContain(`records 1 to ${records} are the ones signed`);
  });

  it('tells the console how to choose a folder when none was chosen', async () => {
    const serve = await spawnServe(dirs);
    try {
      const bridge = await BridgeClient.open(serve.port, readConsoleToken(dirs.home));
      try {
        const reply = (await bridge.request('checkpointStatus', {})) as { ok: boolean; value: Record<string, any> };
        expect(reply.value.folder).toBeUndefined();
        expect(reply.value.problem).toContain('no checkpoint folder chosen');
        expect(reply.value.problem).toContain('--checkpoint-dir DIR');
      } finally {
        bridge.close();
      }
    } finally {
      await serve.stop();
    }
  });

  it('refuses to start with the folder inside the state folder, from the flag or settings.json', async () => {
    let run = await runCli(['serve', '--workspace', dirs.workspace, '--port', '0', '--checkpoint-dir', join(dirs.home, 'cp')], dirs.home);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain(`the checkpoint folder ${join(dirs.home, 'cp')} is inside the state folder`);
    expect(existsSync(join(dirs.home, 'cp'))).toBe(false);
    writeFileSync(join(dirs.home, 'settings.json'), JSON.stringify({ checkpointDir: join(dirs.workspace, 'cp') }));
    run = await runCli(['serve', '--workspace', dirs.workspace, '--port', '0'], dirs.home);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('is inside the workspace');
  });
});
