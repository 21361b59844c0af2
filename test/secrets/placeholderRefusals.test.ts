/**
 * What an agent is told when the secrets its arguments name cannot be used: every undefined or
 * too short one is named, in a list that reads as a sentence, with the command that stores it; a
 * value of exactly the shortest length is used.
 */
import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, resolvePlaceholders } from '../../main/secrets/placeholders';
import type { SecretProvider } from '../../main/secrets/secretProvider';
import { gateErrorOf } from '../fixtures/gateErrors';

function provider(values: Record<string, string>): SecretProvider {
  return { label: 'the secrets file', get: async (name) => values[name], known: () => [] };
}

async function refusalOf(input: unknown, values: Record<string, string> = {}): Promise<string> {
  return (await gateErrorOf(() => resolvePlaceholders(input, provider(values)))).message;
}

describe('undefined secrets', () => {
  it('one is named alone, with the command that stores it under its own name', async () => {
    const message = await refusalOf({ auth: '$ENV.API_KEY' });
    expect(message).toMatch(/^\$ENV\.API_KEY is not defined \(looked in the secrets file\): store it with `toolgate secret set API_KEY`/);
    expect(message).toContain('toolgate serve --secret-env API_KEY');
  });

  it('two are joined with "and"; three or more are listed with commas, in name order', async () => {
    const two = await refusalOf({ a: '$ENV.B_KEY $ENV.A_KEY' });
    expect(two).toMatch(/^\$ENV\.A_KEY and \$ENV\.B_KEY are not defined/);
    // With several names the command is written for any of them.
    expect(two).toContain('store each with `toolgate secret set NAME`');
    expect(await refusalOf({ a: '$ENV.C_KEY', b: ['$ENV.A_KEY', '$ENV.B_KEY'] })).toMatch(/^\$ENV\.A_KEY, \$ENV\.B_KEY and \$ENV\.C_KEY are not defined/);
  });
});

describe('short secrets', () => {
  it('a value of exactly the shortest length is used; one character less is refused by name', async () => {
    const shortest = 'x'.repeat(MIN_SECRET_LENGTH);
    const { input } = await resolvePlaceholders({ auth: '$ENV.PIN' }, provider({ PIN: shortest }));
    expect(input).toEqual({ auth: shortest });
    expect(await refusalOf({ auth: '$ENV.PIN' }, { PIN: shortest.slice(1) })).toContain(`$ENV.PIN: a secret needs at least ${MIN_SECRET_LENGTH} characters`);
  });
});
