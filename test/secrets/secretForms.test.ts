import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { Redactor } from '../../main/secrets/redactor';
import { foldCase } from '../../main/secrets/secretForms';

const VALUE = 'tg-Secret/Val+ue?9f3~';
const redactor = new Redactor([{ name: 'API_KEY', value: VALUE }]);

/** What coreutils writes for `input` with `basenc --<encoding>`: an encoder the gate's code has no part in. */
function basenc(encoding: 'base32' | 'base32hex', input: string): string {
  return execFileSync('basenc', [`--${encoding}`, '-w0'], { input }).toString();
}

/** Every byte as %XX, the way `xxd -p | sed 's/../%&/g'` writes it. */
function percentEveryByte(value: string): string {
  return [...Buffer.from(value)].map((byte) => `%${byte.toString(16).padStart(2, '0')}`).join('');
}

/** Each letter's case swapped. */
function swapCase(text: string): string {
  return [...text].map((char) => (char === char.toUpperCase() ? char.toLowerCase() : char.toUpperCase())).join('');
}

describe('secret forms', () => {
  it('catches every byte percent-encoded, in lower, upper and mixed case', () => {
    const lower = percentEveryByte(VALUE);
    const mixed = [...lower].map((char, index) => (index % 2 === 0 ? char.toUpperCase() : char)).join('');
    for (const form of [lower, lower.toUpperCase(), mixed]) {
      expect(redactor.redactText(`u=${form}&x=1`)).toBe('u=$ENV.API_KEY&x=1');
    }
  });

  it('catches base32 and base32hex, padded or not, in either case, wherever the value starts in a group', () => {
    for (const encoding of ['base32', 'base32hex'] as const) {
      for (const prefix of ['', 'a', 'ab', 'abc', 'abcd', 'user:']) {
        const encoded = basenc(encoding, `${prefix}${VALUE}`);
        expect(encoded.endsWith('=') || encoded.length % 8 === 0).toBe(true);
        for (const form of [encoded, encoded.replace(/=+$/, ''), encoded.toLowerCase()]) {
          const redacted = redactor.redactText(form);
          expect(redacted, `${encoding} of ${prefix}VALUE: ${form}`).toContain('$ENV.API_KEY');
          // What is left is the few characters shared with the prefix or the padding: never a run of the value's.
          expect(redacted.replace('$ENV.API_KEY', '').replace(/=+$/, '').length).toBeLessThanOrEqual(Math.ceil((prefix.length * 8) / 5) + 1);
        }
      }
    }
  });

  it('catches the value and its encodings upper-cased, lower-cased and with swapped case', () => {
    const base64 = Buffer.from(VALUE).toString('base64');
    const hex = Buffer.from(VALUE).toString('hex');
    for (const form of [VALUE, base64, hex, encodeURIComponent(VALUE)]) {
      for (const changed of [form.toUpperCase(), form.toLowerCase(), swapCase(form)]) {
        expect(redactor.redactText(`[${changed}]`), changed).not.toMatch(/[A-Za-z0-9]{6}/);
      }
    }
  });

  it('an upper-cased value split over two stream chunks is still caught', () => {
    const stream = redactor.createStreamRedactor();
    const upper = VALUE.toUpperCase();
    const out = stream.push(`key ${upper.slice(0, 7)}`) + stream.push(`${upper.slice(7)} end`) + stream.flush();
    expect(out).toBe('key $ENV.API_KEY end');
  });

  it('folds case without moving any character, even where lower case is longer', () => {
    for (const text of ['ABC', 'İstanbul TOKEN', 'Ǆ ß ẞ x', '😀 A']) {
      expect(foldCase(text).length).toBe(text.length);
    }
    expect(new Redactor([{ name: 'K', value: 'İ-Secret-Value' }]).redactText('a İ-SECRET-VALUE b')).toBe('a $ENV.K b');
  });
});
