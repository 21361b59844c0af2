import { execFile } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { toolgateRoot } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

const home = makeTempFolder();
afterAll(() => removeTempFolder(home));

/** The npm packages a `toolgate` command loaded (its own modules and Node's are not counted). */
async function packagesLoadedBy(args: string[]): Promise<string[]> {
  const log = join(home, `loaded-${args.join('-')}.txt`);
  rmSync(log, { force: true });
  const hook = join(toolgateRoot(), 'test/fixtures/loadedPackages.mjs');
  await promisify(execFile)(process.execPath, ['--import', hook, join(toolgateRoot(), 'bin/toolgate.js'), ...args], {
    env: { ...process.env, TOOLGATE_HOME: home, TOOLGATE_TEST_LOADED: log },
  }).catch(() => {
    // A command with nothing to work on (no audit log, no gate) still loaded its code first.
  });
  const urls = readFileSync(log, 'utf8').split('\n');
  const packages = urls.map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1]).filter((name) => name !== undefined);
  return [...new Set(packages)].sort();
}

/** What the commands that only read the state folder must never load: the MCP SDK, the JSON Schema validator, the console's socket. */
const GATE_ONLY = ['@modelcontextprotocol/sdk', '@modelcontextprotocol/client', '@modelcontextprotocol/server', 'ajv', 'ws'];

describe('a command loads the code of its own work', () => {
  it('--help loads no package at all', async () => {
    expect(await packagesLoadedBy(['--help'])).toEqual([]);
  });

  it.each([
    [['audit', 'verify'], GATE_ONLY],
    [['servers', 'list'], GATE_ONLY.filter((name) => name !== 'ws')],
    [['secret', 'list'], GATE_ONLY],
  ])('%j loads none of %j', async (args, forbidden) => {
    const loaded = await packagesLoadedBy(args);
    // It ran, with its own packages (zod checks what it reads).
    expect(loaded).toContain('zod');
    expect(loaded.filter((name) => forbidden.includes(name))).toEqual([]);
  });

  it('`call` loads the MCP client it calls the gate with (what the others are kept from)', async () => {
    expect(await packagesLoadedBy(['call', 'echo', '{}'])).toEqual(expect.arrayContaining(['@modelcontextprotocol/sdk', 'ajv']));
  });
});
