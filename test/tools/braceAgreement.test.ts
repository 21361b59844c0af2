import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { expandBraces } from '../../main/tools/shell/shellWords';

// What a rule judges of a braced word must be the words bash makes of it: bash itself is asked here
// (`printf '%s\n' WORD`), and every word of its expansion must be the gate's, in order.

/** The words bash makes of one word by brace expansion. */
function bashWords(word: string): string[] {
  return execFileSync('bash', ['--norc', '--noprofile', '-c', `printf '%s\\n' ${word}`], { encoding: 'utf8' }).split('\n').slice(0, -1);
}

describe('brace expansion agrees with bash', () => {
  it.each([
    'a{b,c}d',
    '{a,{b,c}}x',
    'x{,y}',
    '{a..e}',
    '{5..1}',
    '{r..r..1}m',
    '{1..10..3}',
    '{10..1..4}',
    '{1..3..0}',
    '{a..g..2}',
    '{a..c..-1}',
    'x{01..03}',
    '{-02..2}',
    '{00..3}',
    '{0..10}',
    'file{08..11}.txt',
  ])('%s', (word) => {
    expect(expandBraces(word)).toEqual(bashWords(word));
  });
});
