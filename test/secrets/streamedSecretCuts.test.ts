/**
 * Where streamed output is cut between what is passed on now and what is held for more: a secret
 * that the held tail cuts through is held whole (several overlapping ones too), and secrets that
 * nest, share a start or stand side by side are each shown once. Output goes through
 * OutputRedaction, as a call's streamed output does.
 */
import { describe, expect, it } from 'vitest';
import { OutputRedaction } from '../../main/executor/outputRedaction';
import { Redactor } from '../../main/secrets/redactor';
import type { ResolvedSecret } from '../../main/secrets/placeholders';
import { replaceSnippet } from '../../main/tools/editFile';

/** The pieces a call's output is passed on in, when it arrives in `chunks` and the call then ends. */
function passedOn(secrets: ResolvedSecret[], chunks: string[]): string[] {
  const sent: string[] = [];
  const redaction = new OutputRedaction(
    () => new Redactor(secrets),
    (_, chunk) => sent.push(chunk),
  );
  for (const chunk of chunks) redaction.push('call', chunk);
  redaction.flush('call');
  return sent;
}

const A = { name: 'A', value: 'abcdefgh' };

describe('a secret the held tail cuts through', () => {
  it('is held whole, so no end of it is passed on twice or in the clear', () => {
    // `ghij` could begin C, so it is held; it cuts through A, which is held whole with it.
    const secrets = [A, { name: 'C', value: 'ghijklmn' }];
    expect(new Redactor(secrets).redactSettled('xx abcdefghij')).toEqual({ settled: 'xx ', held: 'abcdefghij' });
    const pieces = passedOn(secrets, ['xx abcdefghij', ' end']);
    expect(pieces[0]).toBe('xx ');
    expect(pieces.join('')).toBe('xx $ENV.Aij end');
  });

  it('through overlapping secrets, each of which is then held', () => {
    // `klm` could begin C; it cuts through B, and B's start cuts through A.
    const secrets = [A, { name: 'B', value: 'efghijkl' }, { name: 'C', value: 'klmnopqr' }];
    expect(new Redactor(secrets).redactSettled('- abcdefghijklm')).toEqual({ settled: '- ', held: 'abcdefghijklm' });
    expect(passedOn(secrets, ['- abcdefghijklm', ' end']).join('')).toBe('- $ENV.A$ENV.Bm end');
  });

  it('but a secret that ends where the held tail starts is passed on redacted', () => {
    const secrets = [A, { name: 'C', value: 'ghijklmn' }];
    expect(new Redactor(secrets).redactSettled('xx abcdefghgh')).toEqual({ settled: 'xx $ENV.A', held: 'gh' });
  });
});

describe('secrets that nest, share a start or stand side by side', () => {
  it('a secret ending where a longer one ends, or starting where it starts, adds nothing', () => {
    const ending = new Redactor([
      { name: 'TAIL', value: 'cdefghij' },
      { name: 'LONG', value: 'abcdefghij' },
    ]);
    expect(ending.redactText('<abcdefghij>')).toBe('<$ENV.LONG>');
    const starting = new Redactor([
      { name: 'HEAD', value: 'abcdefgh' },
      { name: 'LONG', value: 'abcdefghij' },
    ]);
    expect(starting.redactText('<abcdefghij>')).toBe('<$ENV.LONG>');
  });

  it('two secrets with one value are shown as the first one named', () => {
    const redactor = new Redactor([
      { name: 'FIRST', value: 'same-value-1' },
      { name: 'SECOND', value: 'same-value-1' },
    ]);
    expect(redactor.redactText('x same-value-1 x')).toBe('x $ENV.FIRST x');
  });

  it('an edit may replace text that ends exactly where one secret ends and the next begins', () => {
    const secrets = new Redactor([A, { name: 'I', value: 'ijklmnop' }]);
    expect(secrets.secretSpans('abcdefghijklmnop')).toEqual([
      { start: 0, end: 8 },
      { start: 8, end: 16 },
    ]);
    expect(replaceSnippet('key=abcdefghijklmnop\n', 'key=abcdefgh', 'key=', 'f.txt', secrets)).toEqual({ ok: true, after: 'key=ijklmnop\n' });
  });
});

describe('with no secrets', () => {
  it('every text is passed on at once, in a stream too, and no secret stands anywhere', () => {
    const none = new Redactor([]);
    expect(none.redactSettled('plain abc')).toEqual({ settled: 'plain abc', held: '' });
    expect(none.secretSpans('plain abc')).toEqual([]);
    const stream = none.createStreamRedactor();
    expect([stream.push('first '), stream.push('second'), stream.flush()]).toEqual(['first ', 'second', '']);
  });
});
