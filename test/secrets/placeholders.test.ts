import { describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { placeholdersIn, resolvePlaceholders } from '../../main/secrets/placeholders';
import type { SecretProvider } from '../../main/secrets/secretProvider';
import { gateErrorOf } from '../fixtures/gateErrors';

/** A provider over a fixed map, labelled like the real ones. */
function provider(values: Record<string, string>): SecretProvider {
  return { label: 'secrets file /home/me/.toolgate/secrets.json, then environment', get: async (name) => values[name], known: () => [] };
}

function rejection(promise: Promise<unknown>): Promise<GateError> {
  return gateErrorOf(() => promise);
}

describe('placeholdersIn', () => {
  it('finds every name in nested string values, sorted and once each', () => {
    const args = { url: 'https://api/$ENV.B_TOKEN/x', headers: [{ auth: 'Bearer $ENV.A_KEY and $ENV.B_TOKEN' }], n: 3 };
    expect(placeholdersIn(args)).toEqual(['A_KEY', 'B_TOKEN']);
  });

  it('ignores keys, escapes and names that are not NAME-shaped', () => {
    expect(placeholdersIn({ '$ENV.KEY_NAME': 'x', a: '$$ENV.ESCAPED', b: '$ENV.lower $ENV.1ABC' })).toEqual([]);
  });
});

describe('resolvePlaceholders', () => {
  it('replaces placeholders at any depth inside strings, keeps keys, and does not touch the input', async () => {
    const args = { repo: 'me/app', auth: { header: 'token $ENV.GH_TOKEN' }, list: ['$ENV.GH_TOKEN', 7, null, true], '$ENV.GH_TOKEN': 'key stays' };
    const before = structuredClone(args);
    const { input, secrets } = await resolvePlaceholders(args, provider({ GH_TOKEN: 'ghp_abc123' }));
    expect(input).toEqual({ repo: 'me/app', auth: { header: 'token ghp_abc123' }, list: ['ghp_abc123', 7, null, true], '$ENV.GH_TOKEN': 'key stays' });
    expect(secrets).toEqual([{ name: 'GH_TOKEN', value: 'ghp_abc123' }]);
    expect(args).toEqual(before);
    expect(input).not.toBe(args);
  });

  it('turns $$ENV.NAME into the literal $ENV.NAME without looking it up', async () => {
    const { input, secrets } = await resolvePlaceholders({ doc: 'write $$ENV.UNDEFINED_ONE, use $ENV.KEY' }, provider({ KEY: 'k-value-long' }));
    expect(input).toEqual({ doc: 'write $ENV.UNDEFINED_ONE, use k-value-long' });
    expect(secrets.map((secret) => secret.name)).toEqual(['KEY']);
  });

  it('does not expand a placeholder inside a secret value', async () => {
    const { input } = await resolvePlaceholders('$ENV.A', provider({ A: 'xx-$ENV.B', B: 'never-used' }));
    expect(input).toBe('xx-$ENV.B');
  });

  it('an unknown name is EVALIDATION naming the placeholder and how to define it, with no secret value', async () => {
    const error = await rejection(resolvePlaceholders({ a: '$ENV.KNOWN', b: '$ENV.MISSING_TOKEN' }, provider({ KNOWN: 'known-secret-value' })));
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('$ENV.MISSING_TOKEN');
    expect(error.message).toContain('toolgate secret set MISSING_TOKEN');
    expect(error.message).toContain('export MISSING_TOKEN and start the gate with `toolgate serve --secret-env MISSING_TOKEN`');
    expect(error.message).toContain('secrets file /home/me/.toolgate/secrets.json');
    expect(error.message).not.toContain('known-secret-value');
    expect(JSON.stringify(error.toToolError())).not.toContain('known-secret-value');
  });

  it('several unknown names are all named in one error', async () => {
    const error = await rejection(resolvePlaceholders(['$ENV.ONE_X', '$ENV.TWO_X'], provider({})));
    expect(error.message).toMatch(/\$ENV\.ONE_X and \$ENV\.TWO_X are not defined/);
  });

  it('TOOLGATE_* names are refused as the gate’s own settings', async () => {
    const error = await rejection(resolvePlaceholders('$ENV.TOOLGATE_HOME', provider({})));
    expect(error.message).toContain("$ENV.TOOLGATE_HOME: names starting with TOOLGATE_ are the gate's own settings");
  });

  it('a value shorter than 8 characters is refused, without printing it', async () => {
    const error = await rejection(resolvePlaceholders({ pin: '$ENV.PIN' }, provider({ PIN: 'a1z2b3c' })));
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('$ENV.PIN');
    expect(error.message).toContain('at least 8 characters');
    expect(error.message).not.toContain('a1z2b3c');
  });

  it('copes with arguments nested far deeper than the gate allows', async () => {
    let args: unknown = 'deep $ENV.KEY';
    for (let i = 0; i < 20_000; i++) args = [args];
    const { input } = await resolvePlaceholders(args, provider({ KEY: 'k-value-long' }));
    let innermost = input;
    for (let i = 0; i < 20_000; i++) innermost = (innermost as unknown[])[0];
    expect(innermost).toBe('deep k-value-long');
  });
});
