import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compilePathPattern, protectedPathOf, resolvePath, resolvedOtherwise, resolvesTo, shownPath, type PathAnchors } from '../../main/policy/pathRule';
import { RuleError } from '../../main/policy/ruleText';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

/**
 * What a path rule's glob covers, and where a call's path leads, in a workspace holding a symlinked
 * folder (`secret` → `data/real`), a dangling link out of it, and a home folder beside it.
 */

let root: string;
let ws: string;
let anchors: PathAnchors;

beforeAll(() => {
  root = makeTempFolder();
  ws = join(root, 'ws');
  anchors = { workspace: ws, home: join(root, 'home') };
  mkdirSync(join(ws, 'data', 'real'), { recursive: true });
  mkdirSync(join(root, 'outside'));
  mkdirSync(anchors.home);
  writeFileSync(join(ws, 'data', 'real', 'key.txt'), 'k');
  symlinkSync(join('data', 'real'), join(ws, 'secret'));
  symlinkSync(join(root, 'outside', 'planted.sh'), join(ws, 'dangling'));
  symlinkSync('loop', join(ws, 'loop'));
});
afterAll(() => removeTempFolder(root));

const pattern = (specifier: string) => compilePathPattern(specifier, anchors);

describe('a path rule’s glob', () => {
  it('anchors bare and ./ globs at the workspace, trimmed; a trailing / means everything below', () => {
    expect(pattern('  src/** ').test(join(ws, 'src', 'a.ts'))).toBe(true);
    expect(pattern('./src/*.ts').test(join(ws, 'src', 'a.ts'))).toBe(true);
    expect(pattern('docs/').test(join(ws, 'docs', 'guide', 'a.md'))).toBe(true);
    expect(pattern('docs/').test(join(ws, 'docsets', 'a.md'))).toBe(false);
    expect(pattern('.').test(ws)).toBe(true);
    expect(pattern('.').test(join(ws, 'a.txt'))).toBe(false);
    // A folder whose name ends in a dot is named as written.
    expect(pattern('v1./**').test(join(ws, 'v1.', 'a.txt'))).toBe(true);
  });

  it('anchors ~ and ~/ at the home folder, and // at the root', () => {
    expect(pattern('~/.ssh/**').test(join(anchors.home, '.ssh', 'id_rsa'))).toBe(true);
    expect(pattern('~/.ssh/**').test(join(ws, '~', '.ssh', 'id_rsa'))).toBe(false);
    expect(pattern('~').test(anchors.home)).toBe(true);
    expect(pattern('//etc/hostname').test('/etc/hostname')).toBe(true);
  });

  it('refuses a single leading /, which could mean either the workspace or the root', () => {
    expect(() => pattern('/etc/**')).toThrow(RuleError);
  });

  it('matches dot files', () => {
    expect(pattern('src/**').test(join(ws, 'src', '.env'))).toBe(true);
  });
});

describe('a deny or ask path rule', () => {
  it('holds a call that reaches below a folder holding what it guards (a search), but not one beside it', () => {
    const keys = pattern('secret/*.key');
    expect(keys.covers([ws], true)).toBe(true);
    expect(keys.covers([ws], false)).toBe(false);
    expect(keys.covers([join(ws, 'secret')], true)).toBe(true);
    expect(keys.covers([join(ws, 'secretive')], true)).toBe(false);
    expect(keys.covers([join(ws, 'secret', 'sub')], true)).toBe(true);
    // A rule naming one file holds a search of its folder, not of a folder of the same name below it.
    const file = pattern('notes.txt');
    expect(file.covers([ws], true)).toBe(true);
    expect(file.covers([join(ws, 'notes.txt', 'inner')], true)).toBe(false);
  });

  it('holds where its folder really leads (secret → data/real), dot files and single files included', () => {
    expect(pattern('secret/**').covers([join(ws, 'data', 'real', 'key.txt')], false)).toBe(true);
    expect(pattern('secret/**').covers([join(ws, 'data', 'real', '.env')], false)).toBe(true);
    expect(pattern('secret/key.txt').covers([join(ws, 'data', 'real', 'key.txt')], false)).toBe(true);
    expect(pattern('secret/*.key').covers([join(ws, 'data', 'real', 'notes.txt')], false)).toBe(false);
    expect(pattern('secret/*.key').covers([join(ws, 'data', 'real', 'a.key')], false)).toBe(true);
    // A search of data reaches data/real, where the rule's folder leads.
    expect(pattern('secret/*.key').covers([join(ws, 'data')], true)).toBe(true);
    expect(pattern('secret/*.key').covers([join(ws, 'data')], false)).toBe(false);
  });

  it('whose folder leads nowhere it can look up holds only what its glob names', () => {
    // The root, a folder named with a literal star, a link that loops: no other folder to hold.
    expect(pattern('//*.conf').covers(['/etc/hosts'], false)).toBe(false);
    expect(pattern('//*.conf').covers(['/x.conf'], false)).toBe(true);
    expect(pattern('a\\*b/**').covers([join(ws, 'a*b', 'x')], false)).toBe(true);
    expect(pattern('a\\*b/**').covers([join(process.cwd(), 'package.json')], false)).toBe(false);
    expect(pattern('loop/**').covers([join(ws, 'data', 'real', 'key.txt')], false)).toBe(false);
  });

  it('on the whole file system holds every path', () => {
    const everything = pattern('//**');
    expect(everything.covers(['/etc/passwd'], false)).toBe(true);
    expect(everything.covers([join(ws, 'a.txt')], true)).toBe(true);
  });
});

describe('a call’s path', () => {
  it('leads where its links lead, through a link that points nowhere yet too', () => {
    expect(resolvePath('secret/new/file.txt', ws, anchors)).toEqual({
      written: 'secret/new/file.txt',
      lexical: join(ws, 'secret', 'new', 'file.txt'),
      real: join(ws, 'data', 'real', 'new', 'file.txt'),
      inWorkspace: 'data/real/new/file.txt',
    });
    const planted = resolvePath('dangling', ws, anchors);
    expect(planted.real).toBe(join(root, 'outside', 'planted.sh'));
    expect(planted.inWorkspace).toBeUndefined();
  });

  it('reads ~ as the home folder, and tells inside the workspace from outside it', () => {
    expect(resolvePath('~/notes.txt', ws, anchors).real).toBe(join(anchors.home, 'notes.txt'));
    expect(resolvePath('~', ws, anchors).real).toBe(anchors.home);
    expect(resolvePath('.', ws, anchors).inWorkspace).toBe('');
    expect(resolvePath('..', ws, anchors).inWorkspace).toBeUndefined();
    expect(resolvePath('../outside/x', ws, anchors).inWorkspace).toBeUndefined();
    expect(resolvePath('..cache/x', ws, anchors).inWorkspace).toBe('..cache/x');
  });

  it('names the protected path it is or lies in, as written or as it leads', () => {
    expect(protectedPathOf(resolvePath('sub/.git/hooks/x', ws, anchors), ws)).toBe('sub/.git');
    expect(protectedPathOf(resolvePath('..cache/.git/config', ws, anchors), ws)).toBe('..cache/.git');
    expect(protectedPathOf(resolvePath('../outside/.git/config', ws, anchors), ws)).toBeUndefined();
    expect(protectedPathOf(resolvePath('src/a.ts', ws, anchors), ws)).toBeUndefined();
  });
});

describe('where a path is said to lead in a reason', () => {
  it('only when that reads otherwise than written: inside the workspace relative to it, outside absolute', () => {
    expect(resolvesTo(resolvePath('secret/key.txt', ws, anchors))).toBe('data/real/key.txt');
    expect(resolvesTo(resolvePath('./src/../src/a.ts', ws, anchors))).toBeUndefined();
    expect(resolvesTo(resolvePath('src/./a.ts', ws, anchors))).toBeUndefined();
    expect(resolvesTo(resolvePath('src/a.ts', ws, anchors))).toBeUndefined();
    expect(resolvesTo(resolvePath('.', ws, anchors))).toBeUndefined();
    expect(resolvesTo(resolvePath(join(ws, 'src', 'a.ts'), ws, anchors))).toBeUndefined();
    expect(resolvesTo(resolvePath('~/x', ws, anchors))).toBe(join(anchors.home, 'x'));
    expect(resolvesTo(resolvePath('dangling', ws, anchors))).toBe(join(root, 'outside', 'planted.sh'));
  });

  it('shows the written path, with where it resolves when that differs', () => {
    expect(resolvedOtherwise('/a/b', '/a/b')).toBeUndefined();
    expect(resolvedOtherwise('/a/./b', '/a/b')).toBeUndefined();
    expect(resolvedOtherwise('~/../../root/.ssh/id_rsa', '/root/.ssh/id_rsa')).toBe('/root/.ssh/id_rsa');
    expect(shownPath('~/x', '/home/me/x')).toBe('~/x (resolves to /home/me/x)');
    expect(shownPath('a.txt', undefined)).toBe('a.txt');
  });
});
