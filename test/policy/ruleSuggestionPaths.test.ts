/**
 * The rules a prompt suggests for a path: workspace-relative for anything inside the workspace, a
 * name that only begins with two dots (`..cache`) included, and `//absolute` only outside it. Each
 * suggestion, saved, covers the call it was made for.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { builtinLookup, policyEngine, policyFolders, writePolicy, type PolicyFolders } from './policyFixture';

let folders: PolicyFolders;
beforeEach(() => {
  folders = policyFolders();
});
afterEach(() => folders.remove());

const writeFile = builtinLookup('write_file')!;

describe('the rules a prompt suggests for a path', () => {
  it('names a file under a folder whose name begins with two dots relative to the workspace, and the saved rule covers the call', async () => {
    const input = { path: '..cache/notes.txt', content: 'x' };
    const [exact, folder] = await (await policyEngine(folders)).suggestRules(writeFile, input);
    expect(exact?.rule).toBe('write_file(..cache/notes.txt)');
    expect(folder?.rule).toBe('write_file(..cache/**)');
    writePolicy(folders.user, { allow: [exact!.rule] });
    const engine = await policyEngine(folders);
    expect(engine.decide(writeFile, input)).toMatchObject({ decision: 'allow' });
    expect(engine.decide(writeFile, { path: '..cache/other.txt', content: 'x' })).toMatchObject({ decision: 'ask' });
  });

  it('names a file outside the workspace by its absolute path', async () => {
    const input = { path: '../outside.txt', content: 'x' };
    const [exact] = await (await policyEngine(folders)).suggestRules(writeFile, input);
    expect(exact?.rule).toMatch(/^write_file\(\/\/.*\/outside\.txt\)$/);
  });

  it('suggests for a command whose braces make several words the broad rule of the same command written out', async () => {
    const shell = builtinLookup('shell_exec')!;
    const engine = await policyEngine(folders);
    const braced = await engine.suggestRules(shell, { command: 'git -C {a,b} status' });
    const written = await engine.suggestRules(shell, { command: 'git -C a b status' });
    expect(braced.map((one) => one.rule).at(-1)).toBe(written.map((one) => one.rule).at(-1));
    expect(braced.map((one) => one.rule).at(-1)).toMatch(/^shell_exec\(git /);
  });
});
