/**
 * What a tool process does with the pins the gate hands it in a manifest's module path: a manifest
 * or program changed after the gate checked it (between its looks at the tools home) is refused
 * before anything runs.
 */
import { appendFileSync, chmodSync, copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadManifestTool } from '../../../main/tools/sources/manifestFile';
import { fileSha256, pinnedModule } from '../../../main/tools/sources/sourcePins';

let folder: string;
let program: string;
let manifestPath: string;

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'toolgate-pins-'));
  program = join(folder, 'say-program');
  copyFileSync('/usr/bin/printf', program);
  chmodSync(program, 0o755);
  manifestPath = join(folder, 'say.json');
  writeFileSync(
    manifestPath,
    JSON.stringify({
      name: 'say',
      description: 'Says its text back',
      tier: 'SAFE',
      sideEffects: ['ProcessSpawn'],
      inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
      source: { kind: 'subprocess', command: program, args: ['%s', '{{text}}'] },
    }),
  );
});

afterEach(() => rmSync(folder, { recursive: true, force: true }));

// The program lies outside the workspace, as a reviewed program must.
const context = () => {
  const workspace = join(folder, 'workspace');
  mkdirSync(workspace, { recursive: true });
  return { workspace, dryRun: false, callId: 'c1' };
};
const pins = () => ({ manifest: fileSha256(manifestPath), code: fileSha256(program) });

describe('pinned manifest modules', () => {
  it('run while the manifest and program are the ones pinned', async () => {
    const tool = await loadManifestTool(pinnedModule(manifestPath, pins()));
    expect(await tool.execute({ text: 'hi' }, context())).toEqual({ text: 'hi' });
  });

  it('refuse a program changed after the pin was taken, running nothing', async () => {
    const tool = await loadManifestTool(pinnedModule(manifestPath, pins()));
    appendFileSync(program, 'changed');
    await expect(Promise.resolve(tool.execute({ text: 'hi' }, context()))).rejects.toMatchObject({
      code: 'EPERMISSION',
      message: expect.stringContaining(`the program ${program} changed since the tool was reviewed or the gate loaded it`),
    });
  });

  it('refuse a manifest changed after the pin was taken', async () => {
    const pinned = pinnedModule(manifestPath, pins());
    appendFileSync(manifestPath, ' ');
    await expect(loadManifestTool(pinned)).rejects.toMatchObject({ code: 'EPERMISSION', message: expect.stringContaining('toolgate tools review say') });
  });
});
