import { afterEach, describe, expect, it } from 'vitest';
import { OutputRedaction } from '../../main/executor/outputRedaction';

const SECRET = 'Sw0rdf1sh-77';
let redaction: OutputRedaction | undefined;
afterEach(() => redaction?.close());

function collect(): { sent: string[]; redaction: OutputRedaction } {
  const sent: string[] = [];
  redaction = new OutputRedaction((text) => text.replaceAll(SECRET, '$ENV.KEY'), (_callId, chunk) => sent.push(chunk));
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

  it('sends whole lines at once and a partial line after a moment', async () => {
    const { sent, redaction } = collect();
    redaction.push('c1', 'one\ntwo\nprompt> ');
    expect(sent).toEqual(['one\ntwo\n']);
    await new Promise((wake) => setTimeout(wake, 250));
    expect(sent).toEqual(['one\ntwo\n', 'prompt> ']);
  });

  it('keeps calls apart', () => {
    const { sent, redaction } = collect();
    redaction.push('a', 'Sw0r');
    redaction.push('b', 'df1sh-77\n');
    redaction.flush('a');
    expect(sent).toEqual(['df1sh-77\n', 'Sw0r']);
  });
});
