/**
 * Tools that give their input back refuse secrets, in process: echo, calculator and hash (a digest
 * would let an agent check its guesses) answer a placeholder with EVALIDATION naming the field,
 * before any value is read; a tool that takes secrets gets the value.
 */
import { describe, expect, it } from 'vitest';
import { resolveSecrets } from '../../main/executor/steps/resolveSecrets';
import { StepFailure } from '../../main/executor/steps/stepFailure';
import type { RegisteredTool } from '../../main/registry/registry';
import { EnvironmentSecretProvider } from '../../main/secrets/secretProvider';
import { BUILTIN_TOOLS } from '../../main/tools/builtinTools';

const provider = new EnvironmentSecretProvider({ API_KEY: 'k3y-value-123' });
const builtin = (name: string) => ({ tool: BUILTIN_TOOLS.find((tool) => tool.manifest.name === name)! }) as RegisteredTool;

describe('a placeholder given to a tool that gives its input back', () => {
  it.each([
    ['echo', { text: 'say $ENV.API_KEY' }, 'text'],
    ['hash', { text: '$ENV.API_KEY' }, 'text'],
    ['calculator', { expression: '$ENV.API_KEY' }, 'expression'],
  ])('%s refuses it with EVALIDATION naming the field, and never holds the value', async (name, input, field) => {
    const result = await resolveSecrets(builtin(name), input, provider);
    expect(result).toBeInstanceOf(StepFailure);
    const { error } = result as StepFailure;
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain(field);
    expect(JSON.stringify(result)).not.toContain('k3y-value-123');
  });

  it('http_fetch, which takes secrets, gets the value in place of the placeholder', async () => {
    const result = await resolveSecrets(builtin('http_fetch'), { url: 'https://api.example.com/?key=$ENV.API_KEY' }, provider);
    expect(result).not.toBeInstanceOf(StepFailure);
    expect(result).toMatchObject({ input: { url: 'https://api.example.com/?key=k3y-value-123' }, secrets: ['API_KEY'] });
  });
});
