/**
 * What an approval is bound to, in process: the hash of the tool's manifest and the exact
 * arguments. Any change to either is another binding, so an answer given to one call cannot be
 * carried over to another; the same call spelled with its keys in another order is the same.
 */
import { describe, expect, it } from 'vitest';
import { bindingHash } from '../../main/executor/executor';
import { BUILTIN_TOOLS } from '../../main/tools/builtinTools';

const writeFile = BUILTIN_TOOLS.find((tool) => tool.manifest.name === 'write_file')!.manifest;

describe('an approval binding', () => {
  it('changes with any byte of the arguments, and not with their key order', () => {
    const shown = bindingHash(writeFile, { path: 'a.txt', content: 'a\n' });
    expect(bindingHash(writeFile, { content: 'a\n', path: 'a.txt' })).toBe(shown);
    expect(bindingHash(writeFile, { path: 'a.txt', content: 'a\n ' })).not.toBe(shown);
    expect(bindingHash(writeFile, { path: 'b.txt', content: 'a\n' })).not.toBe(shown);
    expect(bindingHash(writeFile, { path: 'a.txt', content: 'a\n', extra: true })).not.toBe(shown);
  });

  it("changes with the tool's manifest: another version of the same tool is another binding", () => {
    const input = { path: 'a.txt', content: 'a\n' };
    expect(bindingHash({ ...writeFile, version: `${writeFile.version}-changed` }, input)).not.toBe(bindingHash(writeFile, input));
    expect(bindingHash({ ...writeFile, tier: 'SAFE' }, input)).not.toBe(bindingHash(writeFile, input));
  });
});
