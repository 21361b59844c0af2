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

  it('holds back less than the longest secret and passes the rest on at once', () => {
    const stream = new Redactor([TOKEN]).createStreamRedactor();
    const first = stream.push(`${'a'.repeat(100)}ghp_S3cr`);
    expect(first).toBe('a'.repeat(100 + 8 - (TOKEN.value.length - 1)));
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
