import { describe, expect, it } from 'vitest';
import { compileGlob, GitignoreMatcher, parseGitignore } from '../../main/tools/gitignore';

/** A matcher holding one root .gitignore. */
function rootIgnore(text: string): GitignoreMatcher {
  const matcher = new GitignoreMatcher();
  matcher.addFile('', text);
  return matcher;
}

describe('gitignore patterns', () => {
  it('skips blank lines and comments, and reads \\# and \\! as literal names', () => {
    expect(parseGitignore('\n# a comment\n   \n')).toEqual([]);
    const matcher = rootIgnore('\\#notes\n\\!important\n');
    expect(matcher.ignores('#notes', false)).toBe(true);
    expect(matcher.ignores('!important', false)).toBe(true);
    expect(matcher.ignores('important', false)).toBe(false);
  });

  it('a name without a slash matches at any depth, files and folders alike', () => {
    const matcher = rootIgnore('*.log\nbuild\n');
    expect(matcher.ignores('debug.log', false)).toBe(true);
    expect(matcher.ignores('src/deep/trace.log', false)).toBe(true);
    expect(matcher.ignores('src/build', true)).toBe(true);
    expect(matcher.ignores('src/build', false)).toBe(true);
    expect(matcher.ignores('log.txt', false)).toBe(false);
    expect(matcher.ignores('src/builder', true)).toBe(false);
  });

  it('* and ? stop at a slash', () => {
    const matcher = rootIgnore('src/*.js\nfile?.txt\n');
    expect(matcher.ignores('src/app.js', false)).toBe(true);
    expect(matcher.ignores('src/lib/app.js', false)).toBe(false);
    expect(matcher.ignores('file1.txt', false)).toBe(true);
    expect(matcher.ignores('file10.txt', false)).toBe(false);
  });

  it('a leading or middle slash anchors to the .gitignore folder', () => {
    const matcher = rootIgnore('/todo.txt\ndoc/frotz\n');
    expect(matcher.ignores('todo.txt', false)).toBe(true);
    expect(matcher.ignores('sub/todo.txt', false)).toBe(false);
    expect(matcher.ignores('doc/frotz', true)).toBe(true);
    expect(matcher.ignores('a/doc/frotz', true)).toBe(false);
  });

  it('a trailing slash matches folders only, and everything below them', () => {
    const matcher = rootIgnore('out/\n');
    expect(matcher.ignores('out', true)).toBe(true);
    expect(matcher.ignores('out', false)).toBe(false);
    expect(matcher.ignores('out/bundle.js', false)).toBe(true);
    expect(matcher.ignores('pkg/out/x/y.js', false)).toBe(true);
  });

  it('** spans folders: leading, trailing and in the middle', () => {
    const matcher = rootIgnore('**/cache\nlogs/**\na/**/z.txt\n');
    expect(matcher.ignores('cache', true)).toBe(true);
    expect(matcher.ignores('x/y/cache', false)).toBe(true);
    expect(matcher.ignores('logs/2024/jan.txt', false)).toBe(true);
    expect(matcher.ignores('logs', true)).toBe(false);
    expect(matcher.ignores('a/z.txt', false)).toBe(true);
    expect(matcher.ignores('a/b/c/z.txt', false)).toBe(true);
    expect(matcher.ignores('b/a/z.txt', false)).toBe(false);
  });

  it('a ** that is not a whole segment is an ordinary *', () => {
    const matcher = rootIgnore('foo**bar\n');
    expect(matcher.ignores('fooXbar', false)).toBe(true);
    expect(matcher.ignores('foo/bar', false)).toBe(false);
  });

  it('! re-includes, the last matching line winning', () => {
    const matcher = rootIgnore('*.log\n!keep.log\n');
    expect(matcher.ignores('drop.log', false)).toBe(true);
    expect(matcher.ignores('keep.log', false)).toBe(false);
    expect(rootIgnore('!keep.log\n*.log\n').ignores('keep.log', false)).toBe(true);
  });

  it('nothing below an ignored folder can be re-included', () => {
    const matcher = rootIgnore('vendor/\n!vendor/keep.js\n');
    expect(matcher.ignores('vendor/keep.js', false)).toBe(true);
    // ... but ignoring the folder's contents (not the folder) leaves room for a re-include
    const contents = rootIgnore('vendor/*\n!vendor/keep.js\n');
    expect(contents.ignores('vendor', true)).toBe(false);
    expect(contents.ignores('vendor/keep.js', false)).toBe(false);
    expect(contents.ignores('vendor/drop.js', false)).toBe(true);
  });

  it('character classes, negated ones included, never match a slash', () => {
    const matcher = rootIgnore('[abc].txt\nx[!0-9]\n');
    expect(matcher.ignores('a.txt', false)).toBe(true);
    expect(matcher.ignores('d.txt', false)).toBe(false);
    expect(matcher.ignores('xy', false)).toBe(true);
    expect(matcher.ignores('x1', false)).toBe(false);
    expect(rootIgnore('a[/]b\n').ignores('a/b', false)).toBe(false);
  });

  it('trailing spaces are trimmed unless escaped, and CRLF files work', () => {
    const matcher = rootIgnore('secret.txt   \r\nspaced\\ \r\n');
    expect(matcher.ignores('secret.txt', false)).toBe(true);
    expect(matcher.ignores('spaced ', false)).toBe(true);
    expect(matcher.ignores('spaced', false)).toBe(false);
  });

  it('regex characters in a pattern are literal', () => {
    const matcher = rootIgnore('a+b(1).txt\n');
    expect(matcher.ignores('a+b(1).txt', false)).toBe(true);
    expect(matcher.ignores('aab1.txt', false)).toBe(false);
  });
});

describe('nested .gitignore files', () => {
  it('apply below their own folder, anchored to it, and override the root', () => {
    const matcher = new GitignoreMatcher();
    matcher.addFile('', '*.tmp\n');
    matcher.addFile('pkg', '/dist\n!important.tmp\n');
    expect(matcher.ignores('pkg/dist', true)).toBe(true);
    expect(matcher.ignores('dist', true)).toBe(false);
    expect(matcher.ignores('pkg/sub/dist', true)).toBe(false);
    expect(matcher.ignores('pkg/important.tmp', false)).toBe(false);
    expect(matcher.ignores('important.tmp', false)).toBe(true);
    expect(matcher.ignores('pkg/other.tmp', false)).toBe(true);
  });

  it('a folder asked for by name is not judged, only what lies below it', () => {
    const matcher = rootIgnore('build/\n*.o\n');
    expect(matcher.ignores('build/main.c', false)).toBe(true);
    expect(matcher.ignores('build/main.c', false, 'build')).toBe(false);
    expect(matcher.ignores('build/main.o', false, 'build')).toBe(true);
  });
});

describe('compileGlob (include / exclude)', () => {
  it('without a slash matches a name at any depth; with one, the whole path', () => {
    expect(compileGlob('*.ts').test('src/deep/a.ts')).toBe(true);
    expect(compileGlob('*.ts').test('a.tsx')).toBe(false);
    expect(compileGlob('src/*.ts').test('src/a.ts')).toBe(true);
    expect(compileGlob('src/*.ts').test('lib/src/a.ts')).toBe(false);
    expect(compileGlob('src/**').test('src/a/b/c.ts')).toBe(true);
    expect(compileGlob('./src/**/*.ts').test('src/a/b/c.ts')).toBe(true);
    expect(compileGlob('**/test/*.ts').test('test/a.ts')).toBe(true);
  });
});

describe('hostile patterns answer promptly', () => {
  // A .gitignore is repository content and include/exclude come from the agent: neither may stall a tool.
  const deepFile = `${'d/'.repeat(40)}deep.txt`;
  const longName = 'a'.repeat(200);

  /** Milliseconds `run` takes. */
  function timed(run: () => void): number {
    const start = performance.now();
    run();
    return performance.now() - start;
  }

  it('**/ repeated many times, in a .gitignore and in a glob', () => {
    const repeated = `${'**/'.repeat(40)}x`;
    const matcher = rootIgnore(`${repeated}\n`);
    expect(timed(() => expect(matcher.ignores(`${'d/'.repeat(40)}y`, false)).toBe(false))).toBeLessThan(500);
    expect(matcher.ignores(`${'d/'.repeat(40)}x`, false)).toBe(true);
    const glob = compileGlob(`${'**/'.repeat(40)}deep.txt`);
    expect(timed(() => expect(glob.test(`${'d/'.repeat(40)}other.txt`)).toBe(false))).toBeLessThan(500);
    expect(glob.test(deepFile)).toBe(true);
    expect(glob.test('deep.txt')).toBe(true);
  });

  it('**/ alternating with names that almost match', () => {
    const glob = compileGlob(`${'**/d/'.repeat(30)}deep.txt`);
    expect(timed(() => expect(glob.test(`${'d/'.repeat(80)}other.txt`)).toBe(false))).toBeLessThan(500);
    expect(glob.test(`${'d/'.repeat(80)}deep.txt`)).toBe(true);
    expect(glob.test(`${'d/'.repeat(29)}deep.txt`)).toBe(false);
  });

  it('* alternating with letters, against a long name', () => {
    const matcher = rootIgnore(`${'*a'.repeat(30)}*b\n`);
    expect(timed(() => expect(matcher.ignores(longName, false)).toBe(false))).toBeLessThan(500);
    expect(matcher.ignores(`${longName}b`, false)).toBe(true);
    expect(matcher.ignores(`${'a'.repeat(29)}b`, false)).toBe(false);
    const glob = compileGlob(`src/${'*a'.repeat(30)}*b/*.ts`);
    expect(timed(() => expect(glob.test(`src/${longName}/x.ts`)).toBe(false))).toBeLessThan(500);
    expect(glob.test(`src/${'a'.repeat(30)}b/x.ts`)).toBe(true);
  });

  it('* runs stay inside a segment while ** spans them', () => {
    const glob = compileGlob('**/a*b/**/z');
    expect(glob.test('aX/ab/z')).toBe(true); // the first a*b candidate fails, a later folder fits
    expect(glob.test('a/b/z')).toBe(false);
    expect(compileGlob('x*y*z').test('xaybz')).toBe(true);
    expect(compileGlob('x*y*z').test('xay/bz')).toBe(false);
  });
});
