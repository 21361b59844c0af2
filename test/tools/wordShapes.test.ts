import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { expandWord } from '../../main/tools/shell/shellWords';
import { wordShapes } from '../../main/tools/shell/wordShapes';

describe('brace expansion as bash does it', () => {
  it.each([
    ['{"r"m,-rf,x}', ['rm', '-rf', 'x']],
    ["{'-r',-f}", ['-r', '-f']],
    ['a{b,"c d"}e', ['abe', 'ac de']],
    ['x{1..3}', ['x1', 'x2', 'x3']],
    ['${x:-a,b}', ['${x:-a,b}']],
    ["'{a,b}'", ['{a,b}']],
    ['"{a,b}"', ['{a,b}']],
    ['\\{a,b}', ['{a,b}']],
    ['$(echo {a,b})', ['$(echo {a,b})']],
    ['{a,b}$x', ['a$x', 'b$x']],
  ])('%s is %j', (written, values) => {
    expect(expandWord(written).map((word) => word.value)).toEqual(values);
    // Words with nothing to compute are checked against bash itself.
    if (!written.includes('$')) expect(execFileSync('bash', ['--norc', '-c', `printf '%s\\0' ${written}`], { encoding: 'utf8' }).split('\0').slice(0, -1)).toEqual(values);
  });
});

describe('what a word may become when bash runs it', () => {
  it('a literal word is itself', () => {
    expect(wordShapes("r''m")).toMatchObject([{ literal: 'rm', count: 'literal', mayBeOption: false }]);
  });

  it('a glob may be several words, each like it, options included', () => {
    const [shape] = wordShapes('-r?');
    expect(shape).toMatchObject({ count: 'many', mayBeOption: true });
    expect(shape!.test('-rf')).toBe(true);
    expect(shape!.test('-x')).toBe(false);
    expect(wordShapes('./*')[0]!.mayBeOption).toBe(false);
    // getopt refuses a word with a character no option has: *.log cannot become -rf.
    expect(wordShapes('*.log')[0]!.mayBeOption).toBe(false);
    expect(wordShapes('*rf')[0]!.mayBeOption).toBe(true);
    expect(wordShapes('-[r]f')[0]!.test('-rf')).toBe(true);
    expect(wordShapes("[']']")[0]!.test(']')).toBe(true);
  });

  it('an unquoted expansion may be any words; a quoted one, one word', () => {
    expect(wordShapes('${X:-push}')[0]).toMatchObject({ count: 'any', mayBeOption: true });
    const [quoted] = wordShapes('"$X"rm');
    expect(quoted).toMatchObject({ count: 'one', mayBeOption: true });
    expect(quoted!.test('/bin/rm')).toBe(true);
    expect(wordShapes('"$@"')[0]).toMatchObject({ count: 'any' });
    expect(wordShapes('"$D"/x')[0]).toMatchObject({ count: 'one', mayBeOption: false });
    expect(wordShapes('"a$"')[0]).toMatchObject({ literal: 'a$' });
    expect(wordShapes('"$(echo ")")"-rf')[0]!.test('x-rf')).toBe(true);
  });

  it('a program named by a path or a tilde is judged by its last segment', () => {
    expect(wordShapes('/bin/r?')[0]!.baseTest('rm')).toBe(true);
    expect(wordShapes('~x/rm')[0]).toMatchObject({ count: 'one', mayBeOption: false });
    expect(wordShapes('~x/rm')[0]!.baseTest('rm')).toBe(true);
    expect(wordShapes('/usr/$D/ls')[0]!.baseTest('rm')).toBe(true);
    expect(wordShapes('/bin/l?')[0]!.baseTest('rm')).toBe(false);
  });
});
