import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createGate } from '../../main/gate/createGate';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { toolgateRoot } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let root: string;
const running: RunningGate[] = [];

afterEach(async () => {
  await Promise.all(running.splice(0).map((gate) => gate.close()));
  if (root) removeTempFolder(root);
});

function folders() {
  root = makeTempFolder();
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  mkdirSync(workspace);
  return { home, workspace };
}

describe('starting a gate', () => {
  it('refuses a second gate on the same state folder, naming the one that runs', async () => {
    const { home, workspace } = folders();
    running.push(await startGate({ home, workspace, port: 0 }));
    const second = startGate({ home, workspace, port: 0 });
    await expect(second).rejects.toMatchObject({ code: 'EPERMISSION', message: expect.stringContaining('already running') });
    // The first gate still works and its address file is intact.
    const echo = await running[0]!.gate.executor.call({ tool: 'echo', arguments: { text: 'still mine' } });
    expect(echo.ok).toBe(true);
  });

  it('refuses a workspace that holds the state folder or Toolgate itself', async () => {
    const { workspace } = folders();
    await expect(createGate({ home: join(workspace, '.toolgate'), workspace })).rejects.toMatchObject({
      code: 'EPERMISSION',
      message: expect.stringContaining('state folder'),
    });
    await expect(createGate({ home: join(root, 'home'), workspace: toolgateRoot() })).rejects.toMatchObject({
      code: 'EPERMISSION',
      message: expect.stringContaining('Toolgate itself'),
    });
  });

  it('keeps the audit database readable by its owner only', async () => {
    const { home, workspace } = folders();
    const gate = await startGate({ home, workspace, port: 0 });
    running.push(gate);
    await gate.gate.executor.call({ tool: 'echo', arguments: { text: 'x' } });
    for (const file of ['audit.db', 'audit.db-wal', 'token']) {
      expect(statSync(join(home, file)).mode & 0o077).toBe(0);
    }
  });
});
