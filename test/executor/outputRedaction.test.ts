import { afterEach, describe, expect, it } from 'vitest';
import { OutputRedaction } from '../../main/executor/outputRedaction';
import { Redactor } from '../../main/secrets/redactor';

const SECRET = 'Sw0rdf1sh-77';
let redaction: OutputRedaction | undefined;
afterEach(() => redaction?.close());

function collect(secrets = [{ name: 'KEY', value: SECRET }]): { sent: string[]; redaction: OutputRedaction } {
  const sent: string[] = [];
  const redactor = new Redactor(secrets);
  redaction = new OutputRedaction(() => redactor, (_callId, chunk) => sent.push(chunk));
  return { sent, redaction };
}

describe('OutputRedaction', () => {
  it('redacts a secret cut across two pieces of output', () => {
    const { sent, redaction } = collect();
    redaction.push('c1', 'token=Sw0rd');
    redaction.push('c1', 'f1sh-77\nnext');
    redaction.flush('c1');
    expect(sent.join('')).toBe('token=$ENV.KEY\nnext');
  });

  it('passes output on at once, holding back only an end that could start a secret', () => {
    const { sent, redaction } = collect();
    redaction.push('c1', 'one\ntwo\nprompt> ');
    expect(sent).toEqual(['one\ntwo\nprompt> ']);
    redaction.push('c1', 'typed Sw0');
    expect(sent.join('')).toBe('one\ntwo\nprompt> typed ');
    redaction.push('c1', 'rd but not the rest\n');
    expect(sent.join('')).toBe('one\ntwo\nprompt> typed Sw0rd but not the rest\n');
  });

  it('a secret printed a few characters at a time, however long the pauses, never shows; the end comes with the call', async () => {
    const { sent, redaction } = collect();
    for (const piece of ['user: ', 'Sw', '0r', 'df', '1s', 'h-', '7']) {
      redaction.push('c1', piece);
      await new Promise((wake) => setTimeout(wake, 200));
    }
    expect(sent.join('')).toBe('user: ');
    redaction.push('c1', '7 done');
    expect(sent.join('')).toBe('user: $ENV.KEY done');
    redaction.push('c1', ' Sw0r');
    redaction.flush('c1');
    // Output that ends with the start of a secret, and nothing more, is sent when the call ends.
    expect(sent.join('')).toBe('user: $ENV.KEY done Sw0r');
  });

  it('catches a secret in its base64 and hex forms split across pieces', () => {
    const { sent, redaction } = collect();
    const base64 = Buffer.from(`user:${SECRET}`).toString('base64');
    const hex = Buffer.from(SECRET).toString('hex');
    const text = `Authorization: Basic ${base64}\n${hex}\n`;
    for (const char of text) redaction.push('c1', char);
    redaction.flush('c1');
    const out = sent.join('');
    expect(out).not.toContain(hex);
    expect(out).not.toContain(base64.slice(8, 20));
    expect(out).toContain('$ENV.KEY');
  });

  it('keeps calls apart, and passes on at once what comes for a call already ended', () => {
    const { sent, redaction } = collect();
    redaction.push('a', 'Sw0r');
    redaction.push('b', 'df1sh-77\n');
    redaction.flush('a');
    expect(sent).toEqual(['df1sh-77\n', 'Sw0r']);
    redaction.push('a', 'late Sw0');
    expect(sent.at(-1)).toBe('late Sw0');
  });
});
