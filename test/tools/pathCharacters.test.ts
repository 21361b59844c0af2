/**
 * Path names that would show the person another name than the one used, in process: every control
 * character, line or paragraph separator and bidi control is refused with EVALIDATION naming the
 * argument and the character; look-alikes that render as themselves are left alone.
 */
import { describe, expect, it } from 'vitest';
import { refuseInvisibleCharacters } from '../../main/tools/workspacePath';

describe('a path argument holding a character that does not show as it is', () => {
  it.each([
    ['a newline', 'a.md\n+++ b/evil', 'U+000A'],
    ['a carriage return', 'a\rb.txt', 'U+000D'],
    ['a tab', 'a\tb.txt', 'U+0009'],
    ['DEL', 'a\u007fb', 'U+007F'],
    ['a C1 control', 'a\u0085b', 'U+0085'],
    ['a line separator', 'a\u2028b', 'U+2028'],
    ['a right-to-left override', 'evil\u202Etxt.sh', 'U+202E'],
    ['a first-strong isolate', 'a\u2068b', 'U+2068'],
  ])('%s is refused with EVALIDATION naming the argument and the character', (_what, path, code) => {
    expect(() => refuseInvisibleCharacters(path, 'path')).toThrow(expect.objectContaining({ code: 'EVALIDATION', details: { argument: 'path', character: code } }));
    expect(() => refuseInvisibleCharacters(path, 'cwd')).toThrow(/^cwd holds the control character/);
  });

  it('lets ordinary names through, accents, spaces and emoji included', () => {
    for (const path of ['src/a.ts', 'notes/été 2026.md', 'docs/😀.md', '.github/workflows/ci.yml']) {
      expect(() => refuseInvisibleCharacters(path, 'path')).not.toThrow();
    }
  });
});
