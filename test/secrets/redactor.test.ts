import { describe, expect, it } from 'vitest';
import { Redactor } from '../../main/secrets/redactor';

const TOKEN = { name: 'GH_TOKEN', value: 'ghp_S3cr3tT0ken' };

/** Feeds `text` to a stream redactor in chunks of the given sizes (the rest as the last chunk). */
function streamed(redactor: Redactor, text: string, sizes: number[]): string {
  const stream = redactor.createStreamRedactor();
  let out = '';
  let at = 0;
  for (const size of [...sizes, text.length]) {
    out += stream.push(text.slice(at, at + size));
    at += size;
    if (at >= text.length) break;
  }
  return out + stream.flush();
}

describe('Redactor.redactText', () => {
  it('replaces every occurrence with the placeholder', () => {
    const redactor = new Redactor([TOKEN]);
    expect(redactor.redactText('token=ghp_S3cr3tT0ken; again ghp_S3cr3tT0ken!')).toBe('token=$ENV.GH_TOKEN; again $ENV.GH_TOKEN!');
    expect(redactor.redactText('ghp_S3cr3tT0kenghp_S3cr3tT0ken')).toBe('$ENV.GH_TOKEN$ENV.GH_TOKEN');
  });

  it('a secret inside a longer one redacts as the longer one', () => {
    const redactor = new Redactor([
      { name: 'SHORT', value: 'abcd' },
      { name: 'LONG', value: 'xxabcdyy' },
    ]);
    expect(redactor.redactText('1 xxabcdyy 2 abcd')).toBe('1 $ENV.LONG 2 $ENV.SHORT');
  });

  it('partly overlapping secrets leave no character of either', () => {
    const redactor = new Redactor([
      { name: 'A', value: 'abcdef' },
      { name: 'B', value: 'defghi' },
    ]);
    expect(redactor.redactText('<abcdefghi>')).toBe('<$ENV.A$ENV.B>');
    expect(new Redactor([{ name: 'R', value: 'aaaa' }]).redactText('baaaaaab')).toBe('b$ENV.Rb');
  });

  it('catches the JSON-escaped form of a value with quotes, backslashes or newlines', () => {
    const value = 'pa"ss\\wo\nrd';
    const redactor = new Redactor([{ name: 'PW', value }]);
    const json = JSON.stringify({ echoed: value });
    expect(json).not.toContain(value);
    expect(redactor.redactText(json)).toBe('{"echoed":"$ENV.PW"}');
    expect(JSON.parse(redactor.redactText(json))).toEqual({ echoed: '$ENV.PW' });
    expect(redactor.redactText(`raw ${value}`)).toBe('raw $ENV.PW');
  });

  it('with no secrets returns the very same text', () => {
    const text = 'x'.repeat(1_000_000);
    expect(new Redactor([]).redactText(text)).toBe(text);
    expect(new Redactor([]).isEmpty).toBe(true);
  });
});

describe('Redactor.redactValue', () => {
  it('redacts strings at any depth, keys included, and leaves the original alone', () => {
    const redactor = new Redactor([TOKEN]);
    const output = { result: { lines: ['ok', 'auth ghp_S3cr3tT0ken'], count: 2, ok: true, none: null }, 'ghp_S3cr3tT0ken': 'as key' };
    const before = structuredClone(output);
    expect(redactor.redactValue(output)).toEqual({
      result: { lines: ['ok', 'auth $ENV.GH_TOKEN'], count: 2, ok: true, none: null },
      '$ENV.GH_TOKEN': 'as key',
    });
    expect(output).toEqual(before);
  });

  it('keeps a "__proto__" key an ordinary key', () => {
    const redacted = new Redactor([TOKEN]).redactValue(JSON.parse('{"__proto__": {"x": "ghp_S3cr3tT0ken"}}')) as object;
    expect(Object.getPrototypeOf(redacted)).toBe(Object.prototype);
    expect(JSON.stringify(redacted)).toBe('{"__proto__":{"x":"$ENV.GH_TOKEN"}}');
  });
});

describe('Redactor.createStreamRedactor', () => {
  const text = 'start ghp_S3cr3tT0ken middle ghp_S3cr3tT0ken end';

  it('redacts a value split across chunks, wherever the split falls', () => {
    const redactor = new Redactor([TOKEN]);
    for (let split = 0; split <= text.length; split++) {
      expect(streamed(redactor, text, [split])).toBe('start $ENV.GH_TOKEN middle $ENV.GH_TOKEN end');
    }
    expect(streamed(redactor, text, Array(text.length).fill(1))).toBe('start $ENV.GH_TOKEN middle $ENV.GH_TOKEN end');
  });

  it('holds back less than the longest form of a secret (every byte percent-encoded) and passes the rest on at once', () => {
    const stream = new Redactor([TOKEN]).createStreamRedactor();
    const first = stream.push(`${'a'.repeat(100)}ghp_S3cr`);
    expect(first).toBe('a'.repeat(100 + 8 - (3 * TOKEN.value.length - 1)));
    expect(first + stream.push('3tT0ken tail') + stream.flush()).toBe(`${'a'.repeat(100)}$ENV.GH_TOKEN tail`);
  });

  it('matches redactText for overlapping secrets and JSON-escaped values, chunked every way', () => {
    const redactor = new Redactor([
      { name: 'A', value: 'abcdef' },
      { name: 'B', value: 'defghi' },
      { name: 'R', value: 'abcab' },
      { name: 'Q', value: 'q"uo\\te' },
    ]);
    const input = `x abcdefghi y abcabcab z ${JSON.stringify('q"uo\\te')} abcdefabcdef`;
    const whole = redactor.redactText(input);
    expect(whole).not.toMatch(/abcdef|defghi|abcab|uo/);
    for (let split = 0; split <= input.length; split++) {
      for (const second of [1, 3, 7]) expect(streamed(redactor, input, [split, second])).toBe(whole);
    }
  });

  it('never lets a secret through, whole or streamed, for random texts, secrets and chunk sizes', () => {
    let seed = 1;
    const random = (n: number) => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % n;
    const word = (length: number) => Array.from({ length }, () => 'ab"\\\n'[random(5)]).join('');
    for (let round = 0; round < 1000; round++) {
      const secrets = Array.from({ length: 1 + random(3) }, (_, index) => ({ name: `S${index}`, value: word(4 + random(4)) }));
      const redactor = new Redactor(secrets);
      const text = word(random(40));
      const whole = redactor.redactText(text);
      for (const { value } of secrets) expect(whole).not.toContain(value);
      const sizes = Array.from({ length: 40 }, () => 1 + random(6));
      expect(streamed(redactor, text, sizes)).toBe(whole);
    }
  });

  it('with no secrets passes chunks straight through', () => {
    const stream = new Redactor([]).createStreamRedactor();
    expect(stream.push('abc')).toBe('abc');
    expect(stream.flush()).toBe('');
  });
});

describe('Redactor: encoded forms of a secret', () => {
  const value = 'ghp_S3cr3t/T0ken+x y?&';
  const redactor = new Redactor([{ name: 'GH_TOKEN', value }]);
  const bytes = Buffer.from(value);

  it('catches base64, base64url, hex (both cases) and URL-encoded forms', () => {
    const forms = {
      base64: bytes.toString('base64'),
      base64url: bytes.toString('base64url'),
      hex: bytes.toString('hex'),
      HEX: bytes.toString('hex').toUpperCase(),
      uri: encodeURIComponent(value),
      uriLower: encodeURIComponent(value).replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
      form: new URLSearchParams({ q: value }).toString().slice(2),
    };
    for (const [kind, encoded] of Object.entries(forms)) {
      expect(encoded, kind).not.toBe(value);
      const redacted = redactor.redactText(`before ${encoded} after`);
      expect(redacted, kind).toContain('$ENV.GH_TOKEN');
      // No run of 8 characters of the encoding survives.
      for (let at = 0; at + 8 <= encoded.length; at++) expect(redacted, kind).not.toContain(encoded.slice(at, at + 8));
    }
  });

  it('catches base64 wherever the secret starts inside the encoded text (an HTTP Basic header)', () => {
    for (const prefix of ['', 'u:', 'user:', 'x', 'ab']) {
      const encoded = Buffer.from(`${prefix}${value}!`).toString('base64');
      const redacted = redactor.redactText(`Authorization: Basic ${encoded}`);
      expect(redacted, prefix).toContain('$ENV.GH_TOKEN');
      expect(redacted.length, prefix).toBeLessThan(`Authorization: Basic ${encoded}`.length);
      const core = Buffer.from(value).toString('base64').slice(4, 20);
      if (prefix === '') expect(redacted).not.toContain(core);
    }
  });

  it('catches the value JSON-escaped twice (JSON text inside a JSON string)', () => {
    const quoted = 'pa"ss\\word-long';
    const twice = JSON.stringify(JSON.stringify({ v: quoted }));
    expect(new Redactor([{ name: 'PW', value: quoted }]).redactText(twice)).not.toContain('ss');
  });
});

describe('Redactor.redactSettled', () => {
  it('holds back an end that could begin a secret, widened to any secret it cuts through', () => {
    const redactor = new Redactor([
      { name: 'A', value: 'abcdefgh' },
      { name: 'B', value: 'efghijkl' },
    ]);
    expect(redactor.redactSettled('x abcdefgh')).toEqual({ settled: 'x ', held: 'abcdefgh' });
    // No form of either secret starts with "!" (a letter could start a base32 or base64 one).
    expect(redactor.redactSettled('x abcdefgh !')).toEqual({ settled: 'x $ENV.A !', held: '' });
    expect(redactor.redactSettled('plain text')).toEqual({ settled: 'plain text', held: '' });
  });
});
