/**
 * The gate's one redaction (CallRedactions) keeps its redactor while the secrets stay the same, and
 * takes a change the moment it is seen: a secret stored in the secrets file while the gate runs, one
 * removed from it, a call's own secrets from when it runs until they linger out. The executor asks
 * for the redactor several times a call, so a redactor kept too long would show a secret in a
 * result, a log line or the audit.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CallRedactions } from '../../main/executor/callRedactions';
import { ChainSecretProvider, EnvironmentSecretProvider, FileSecretProvider } from '../../main/secrets/secretProvider';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

const STORED = 'stored-secret-value-1';
const FROM_ENV = 'environment-secret-value';
const OF_CALL = 'resolved-for-one-call';

let home: string;
let now: number;
let redactions: CallRedactions;

/** The gate's chain of providers (the secrets file, then the environment), or the other way round. */
function redactionsOf(order: 'file first' | 'file last'): CallRedactions {
  const file = new FileSecretProvider(join(home, 'secrets.json'), { recheckMs: 100, now: () => now });
  const environment = new EnvironmentSecretProvider({ API_KEY: FROM_ENV }, ['API_KEY']);
  return new CallRedactions(new ChainSecretProvider(order === 'file first' ? [file, environment] : [environment, file]));
}

function writeSecrets(secrets: Record<string, string>): void {
  writeFileSync(join(home, 'secrets.json'), JSON.stringify(secrets), { mode: 0o600 });
}

/** What the gate would show of a text naming every secret of the test. */
function shown(): string {
  return redactions.redactValue({ text: `${STORED} ${FROM_ENV} ${OF_CALL}` }).text;
}

beforeEach(() => {
  home = makeTempFolder();
  now = 0;
  redactions = redactionsOf('file first');
});

afterEach(() => {
  vi.useRealTimers();
  removeTempFolder(home);
});

describe('the gate-wide redaction', () => {
  for (const order of ['file first', 'file last'] as const) {
    it(`hides a secret stored in the file while the gate runs once the file is looked at again, and shows one removed from it (${order})`, () => {
      redactions = redactionsOf(order);
      expect(shown()).toBe(`${STORED} $ENV.API_KEY ${OF_CALL}`);
      writeSecrets({ GH_TOKEN: STORED });
      now = 150;
      expect(shown()).toBe(`$ENV.GH_TOKEN $ENV.API_KEY ${OF_CALL}`);
      writeSecrets({ OTHER: 'another-secret-value-22' });
      now = 300;
      expect(shown()).toBe(`${STORED} $ENV.API_KEY ${OF_CALL}`);
    });
  }

  it("hides a call's own secrets from the moment it runs until they linger out after it ended", () => {
    vi.useFakeTimers();
    expect(shown()).toBe(`${STORED} $ENV.API_KEY ${OF_CALL}`);
    const resolved = [{ name: 'PER_CALL', value: OF_CALL }];
    redactions.set('call-1', resolved);
    // What the caller does with its array afterwards changes nothing.
    resolved.length = 0;
    expect(shown()).toBe(`${STORED} $ENV.API_KEY $ENV.PER_CALL`);
    redactions.delete('call-1');
    expect(shown()).toBe(`${STORED} $ENV.API_KEY $ENV.PER_CALL`);
    vi.advanceTimersByTime(30_000);
    expect(shown()).toBe(`${STORED} $ENV.API_KEY ${OF_CALL}`);
  });

  it("hears a provider that adds a secret to an array it answered with before (an array it did not freeze)", () => {
    const known = [{ name: 'API_KEY', value: FROM_ENV }];
    redactions = new CallRedactions({ label: 'a vault', get: async () => undefined, known: () => known });
    expect(shown()).toBe(`${STORED} $ENV.API_KEY ${OF_CALL}`);
    known.push({ name: 'GH_TOKEN', value: STORED });
    expect(shown()).toBe(`$ENV.GH_TOKEN $ENV.API_KEY ${OF_CALL}`);
  });

  it('keeps one redactor while nothing changes, and makes another when a secret comes', () => {
    const first = redactions.current();
    expect(redactions.current()).toBe(first);
    redactions.set('call-1', [{ name: 'PER_CALL', value: OF_CALL }]);
    const second = redactions.current();
    expect(second).not.toBe(first);
    expect(redactions.current()).toBe(second);
  });
});
