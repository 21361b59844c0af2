import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { DEFAULT_BOUNDS } from '../../shared/manifest';
import { defineTool, type ToolDefinition } from '../../main/registry/defineTool';

type AnyDefinition = ToolDefinition<z.ZodType, z.ZodType>;

function base(overrides: Partial<AnyDefinition> = {}): AnyDefinition {
  return {
    name: 'sample_tool',
    version: '1.2.3',
    description: 'A tool for tests.',
    tier: 'SAFE',
    input: z.object({ text: z.string() }),
    output: z.object({ length: z.number() }),
    execute: (input) => ({ length: (input as { text: string }).text.length }),
    ...overrides,
  };
}

/** The GateError a definition is refused with. */
function refusal(definition: AnyDefinition): GateError {
  try {
    defineTool(definition);
  } catch (error) {
    if (error instanceof GateError) return error;
    throw error;
  }
  throw new Error('defineTool accepted the definition');
}

describe('defineTool', () => {
  it('derives a manifest with defaults and JSON Schemas from the zod schemas', () => {
    const tool = defineTool(base({ bounds: { timeoutMs: 1234 } }));
    expect(tool.manifest).toMatchObject({
      name: 'sample_tool',
      version: '1.2.3',
      tier: 'SAFE',
      sideEffects: [],
      determinism: 'Deterministic',
      capabilities: [],
      pathArguments: [],
      supportsDryRun: false,
      bounds: { ...DEFAULT_BOUNDS, timeoutMs: 1234 },
    });
    expect(tool.manifest.inputSchema).toMatchObject({ type: 'object', properties: { text: { type: 'string' } } });
    expect(tool.manifest.outputSchema).toMatchObject({ type: 'object', properties: { length: { type: 'number' } } });
  });

  it.each([
    ['Upper_Case', 'name'],
    ['1starts_with_digit', 'name'],
    ['has-dash', 'name'],
    ['a'.repeat(65), 'name'],
  ])('refuses the name %j with a message naming the name field', (name, field) => {
    const error = refusal(base({ name }));
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain(`${field}: a tool name is lower case`);
  });

  it.each(['1.0', 'v1.0.0', '1.0.0.0', 'latest'])('refuses the version %j with a message naming the version field', (version) => {
    const error = refusal(base({ version }));
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain('version: a version is semver');
  });

  it('accepts a semver pre-release version', () => {
    expect(defineTool(base({ version: '2.0.0-beta.1' })).manifest.version).toBe('2.0.0-beta.1');
  });

  it.each(['fs', 'fs:delete', 'disk:read', 'fs:write:has space'])(
    'refuses the capability %j with a message naming its position',
    (capability) => {
      const error = refusal(base({ capabilities: ['fs:read', capability as 'fs:read'] }));
      expect(error.code).toBe('EVALIDATION');
      expect(error.message).toContain('capabilities.1: a capability reads kind:access[:scope]');
    },
  );

  it('accepts scoped capabilities', () => {
    const capabilities = ['fs:write:src/**', 'net:read:api.github.com', 'process:spawn'] as const;
    expect(defineTool(base({ capabilities: [...capabilities] })).manifest.capabilities).toEqual(capabilities);
  });

  it('refuses bounds out of range, naming the bound', () => {
    expect(refusal(base({ bounds: { timeoutMs: 0 } })).message).toContain('bounds.timeoutMs');
    expect(refusal(base({ bounds: { maxMemoryMb: 1.5 } })).message).toContain('bounds.maxMemoryMb');
  });

  it('refuses an unknown tier and an empty description', () => {
    expect(refusal(base({ tier: 'HARMLESS' as 'SAFE' })).message).toContain('tier');
    expect(refusal(base({ description: '' })).message).toContain('description');
  });

  it('refuses an input schema that is not an object schema', () => {
    expect(refusal(base({ input: z.string() })).message).toContain('the input schema must be an object schema');
  });

  it('refuses a definition without execute code', () => {
    const definition = base({ execute: undefined as unknown as AnyDefinition['execute'] });
    expect(refusal(definition).message).toContain('execute must be a function');
  });

  it('folds repeated side effects into one', () => {
    expect(defineTool(base({ sideEffects: ['FsRead', 'FsRead', 'NetRead'] })).manifest.sideEffects).toEqual(['FsRead', 'NetRead']);
  });

  it('freezes the manifest, so what was validated is what the gate trusts', () => {
    const { manifest } = defineTool(base({ capabilities: ['fs:read'] }));
    expect(() => {
      (manifest as { tier: string }).tier = 'DANGEROUS';
    }).toThrow(TypeError);
    expect(() => (manifest.capabilities as string[]).push('fs:write')).toThrow(TypeError);
    expect(manifest.tier).toBe('SAFE');
    expect(manifest.capabilities).toEqual(['fs:read']);
  });

  it('carries initialize and healthCheck for the tool process, bound to the definition, without touching the manifest', async () => {
    const plain = defineTool(base());
    const hooked = defineTool({
      ...base(),
      ready: false,
      initialize(this: { ready: boolean }) {
        this.ready = true;
      },
      healthCheck(this: { ready: boolean }) {
        return this.ready ? { healthy: true } : { healthy: false, message: 'not initialized' };
      },
    } as AnyDefinition);
    expect(plain.initialize).toBeUndefined();
    expect(plain.healthCheck).toBeUndefined();
    expect(hooked.manifest).toEqual(plain.manifest);
    expect(await hooked.healthCheck!()).toEqual({ healthy: false, message: 'not initialized' });
    await hooked.initialize!({ workspace: '/ws' });
    expect(await hooked.healthCheck!()).toEqual({ healthy: true });
  });

  it.each(['initialize', 'healthCheck'] as const)('refuses a %s that is not a function', (hook) => {
    const definition = { ...base(), [hook]: 'yes' } as unknown as AnyDefinition;
    expect(refusal(definition).message).toContain(`${hook} must be a function when given`);
  });
});
