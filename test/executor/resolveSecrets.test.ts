import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { askForSecrets, resolveSecrets } from '../../main/executor/steps/resolveSecrets';
import { StepFailure } from '../../main/executor/steps/stepFailure';
import { defineTool } from '../../main/registry/defineTool';
import type { RegisteredTool } from '../../main/registry/registry';
import { EnvironmentSecretProvider } from '../../main/secrets/secretProvider';

const fetchLike = {
  tool: defineTool({
    name: 'fetch_like',
    version: '1.0.0',
    description: 'Takes a URL.',
    tier: 'SAFE',
    urlArguments: ['url'],
    input: z.object({ url: z.string() }).strict(),
    output: z.object({}),
    execute: () => ({}),
  }),
} as RegisteredTool;

const provider = new EnvironmentSecretProvider({ API_KEY: 'k3y-value-123', MOVER: '@evil.example/x' });

describe('resolveSecrets', () => {
  it('refuses a secret that would move a checked URL to another host, never showing the value', async () => {
    const moved = await resolveSecrets(fetchLike, { url: 'https://api.example.com$ENV.MOVER' }, provider);
    expect(moved).toBeInstanceOf(StepFailure);
    const error = (moved as StepFailure).error;
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('url: with $ENV.MOVER put in, the URL would no longer go to the host the gate checked');
    expect(JSON.stringify(error)).not.toContain('evil.example');
  });

  it('lets a secret in the path or query through, keeping its name for the prompt', async () => {
    const resolved = await resolveSecrets(fetchLike, { url: 'https://api.example.com/items?token=$ENV.API_KEY' }, provider);
    expect(resolved).not.toBeInstanceOf(StepFailure);
    expect(resolved).toMatchObject({ input: { url: 'https://api.example.com/items?token=k3y-value-123' }, secrets: ['API_KEY'] });
  });
});

describe('askForSecrets', () => {
  const allow = { decision: 'allow' as const, rule: 'tier:SAFE→allow', reason: 'runs' };
  it('turns an allowed call that receives secrets into a prompt; a denied one stays denied; none changes nothing', () => {
    expect(askForSecrets(allow, 'fetch_like', ['API_KEY'])).toMatchObject({ decision: 'ask', rule: 'secrets→ask' });
    expect(askForSecrets(allow, 'fetch_like', ['API_KEY']).reason).toContain('$ENV.API_KEY');
    const deny = { decision: 'deny' as const, rule: 'tier:DANGEROUS→deny', reason: 'blocked' };
    expect(askForSecrets(deny, 'fetch_like', ['API_KEY'])).toBe(deny);
    expect(askForSecrets(allow, 'fetch_like', [])).toBe(allow);
  });
});
