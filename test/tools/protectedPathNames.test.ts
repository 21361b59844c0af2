import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findProtectedBelow, protectedMatch } from '../../main/tools/protectedPaths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

/**
 * The protected file or folder a path names, however the path is spelled, and the grant it needs:
 * what a refusal names and what the person would grant.
 */

describe('a protected path spelled oddly', () => {
  it('is named as the plain path, with the grant for it', () => {
    for (const path of ['./.git/hooks/pre-commit', '.git//hooks', '././.git', '.\\.git\\hooks\\x']) {
      expect(protectedMatch(path), path).toMatchObject({ protectedPath: '.git', grant: 'fs:write:.git/**' });
    }
    expect(protectedMatch('sub//.git/config')).toMatchObject({ protectedPath: 'sub/.git', grant: 'fs:write:sub/.git/**' });
    expect(protectedMatch('./sub/./.mcp.json')).toMatchObject({ protectedPath: 'sub/.mcp.json', grant: 'fs:write:sub/.mcp.json' });
  });
});

describe('a search for protected entries below a folder', () => {
  let root: string;
  beforeEach(() => {
    root = makeTempFolder();
    mkdirSync(join(root, 'a', '.git'), { recursive: true });
    writeFileSync(join(root, 'b.txt'), '');
  });
  afterEach(() => removeTempFolder(root));

  it('is complete when it visited every entry within its limit, and says so when it could not', () => {
    // Three entries: a, b.txt and a/.git.
    expect(findProtectedBelow(root, '', 3)).toEqual({ found: [expect.objectContaining({ protectedPath: 'a/.git' })], complete: true });
    expect(findProtectedBelow(root, '', 2).complete).toBe(false);
  });
});
