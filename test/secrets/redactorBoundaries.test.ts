/**
 * Where the redactor cuts text it passes on: a secret whose first characters end one chunk is held
 * back until it can be told apart, a character outside the BMP is never split in two, overlapping
 * secrets are one stretch to a tool that matches file contents, and a secret with no value redacts
 * nothing. The whole-text and streamed forms are in redactor.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../main/secrets/redactor';

const TOKEN = { name: 'GH_TOKEN', value: 'ghp_S3cr3tT0ken' };

/** Whether a text holds no lone surrogate (what String.prototype.isWellFormed says, in ES2024). */
const wellFormed = (text: string) => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(text);

describe('text passed on before the rest arrives', () => {
  it('holds back the start of a secret and passes on what cannot begin one, so the secret never leaks across the cut', () => {
    const redactor = new Redactor([TOKEN]);
    const first = redactor.redactSettled('log line !ghp_S3c');
    expect(first.settled).toBe('log line !');
    expect(first.held).toBe('ghp_S3c');
    const rest = redactor.redactText(`${first.held}r3tT0ken done`);
    expect(first.settled + rest).toBe('log line !$ENV.GH_TOKEN done');
    // Nothing that ends the text begins a secret: everything goes, nothing is held.
    expect(redactor.redactSettled('log line !')).toEqual({ settled: 'log line !', held: '' });
  });

  it('holds back a secret cut at any point, however short the text', () => {
    const redactor = new Redactor([TOKEN]);
    for (let length = 1; length < TOKEN.value.length; length++) {
      const head = TOKEN.value.slice(0, length);
      const { settled, held } = redactor.redactSettled(`!${head}`);
      expect({ length, settled, held }).toEqual({ length, settled: '!', held: head });
    }
  });

  it('never splits a character outside the BMP between two pieces of a stream, wherever the chunks and the hold fall', () => {
    const redactor = new Redactor([{ name: 'KEY', value: 'k3y-V4lue' }]);
    const text = `ok ${'😀'.repeat(40)} then 😀 k3y-V4lue ${'😀'.repeat(40)}`;
    for (let at = 1; at < text.length; at++) {
      // Chunks as a decoder hands them on: never inside a pair.
      if (!wellFormed(text.slice(0, at))) continue;
      const stream = redactor.createStreamRedactor();
      const pieces = [stream.push(text.slice(0, at)), stream.push(text.slice(at)), stream.flush()];
      expect(pieces.map(wellFormed)).toEqual([true, true, true]);
      expect(pieces.join('')).toBe(redactor.redactText(text));
    }
  });

  it('passes a long stream on as it comes, holding back only an end', () => {
    const redactor = new Redactor([TOKEN]);
    const stream = redactor.createStreamRedactor();
    const text = 'x'.repeat(400);
    const first = stream.push(text);
    expect(first.length).toBeGreaterThan(300);
    expect(stream.push('')).toBe('');
    expect(first + stream.flush()).toBe(text);
  });
});

describe('where secrets stand in a text', () => {
  it('gives overlapping secrets as one stretch, and apart ones apart', () => {
    const redactor = new Redactor([
      { name: 'A', value: 'abcdefgh' },
      { name: 'B', value: 'efghijkl' },
    ]);
    expect(redactor.secretSpans('.. abcdefghijkl ..')).toEqual([{ start: 3, end: 15 }]);
    expect(redactor.secretSpans('abcdefgh . efghijkl')).toEqual([
      { start: 0, end: 8 },
      { start: 11, end: 19 },
    ]);
    // A secret inside another's stretch does not shorten it.
    const nested = new Redactor([
      { name: 'LONG', value: 'xxabcdyy' },
      { name: 'SHORT', value: 'abcd' },
    ]);
    expect(nested.secretSpans('- xxabcdyy -')).toEqual([{ start: 2, end: 10 }]);
    expect(redactor.secretSpans('nothing here')).toEqual([]);
  });
});

describe('a secret with no value', () => {
  it('redacts nothing and leaves text, values and streams as they were', () => {
    const redactor = new Redactor([{ name: 'UNSET', value: '' }, TOKEN]);
    expect(redactor.redactText('plain text')).toBe('plain text');
    expect(redactor.redactValue({ note: 'plain', token: TOKEN.value })).toEqual({ note: 'plain', token: '$ENV.GH_TOKEN' });
    const onlyEmpty = new Redactor([{ name: 'UNSET', value: '' }]);
    expect(onlyEmpty.isEmpty).toBe(true);
    expect(onlyEmpty.redactText('plain text')).toBe('plain text');
  });
});
