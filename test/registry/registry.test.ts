import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import type { SideEffect } from '../../shared/manifest';
import { defineTool } from '../../main/registry/defineTool';
import { ToolRegistry } from '../../main/registry/registry';

function tool(name: string, sideEffects: SideEffect[] = []) {
  return defineTool({
    name,
    version: '1.0.0',
    description: `the ${name} tool`,
    tier: 'SAFE',
    sideEffects,
    input: z.object({}),
    output: z.object({}),
    execute: () => ({}),
  });
}

describe('ToolRegistry', () => {
  it('registers, finds, lists (sorted by name), removes and clears tools', () => {
    const registry = new ToolRegistry();
    const zeta = tool('zeta');
    registry.register(zeta, '/abs/tools.mjs');
    registry.register(tool('alpha'));
    expect(registry.has('zeta')).toBe(true);
    expect(registry.get('zeta')).toEqual({ tool: zeta, module: '/abs/tools.mjs' });
    expect(registry.get('alpha')?.module).toBe('builtin');
    expect(registry.list().map((manifest) => manifest.name)).toEqual(['alpha', 'zeta']);

    expect(registry.remove('zeta')).toBe(true);
    expect(registry.remove('zeta')).toBe(false);
    expect(registry.has('zeta')).toBe(false);
    expect(registry.get('zeta')).toBeUndefined();

    registry.clear();
    expect(registry.list()).toEqual([]);
    expect(registry.has('alpha')).toBe(false);
  });

  it('refuses a second tool with a name already registered, and keeps the first', () => {
    const registry = new ToolRegistry();
    const first = tool('dup');
    registry.register(first);
    expect(() => registry.register(tool('dup'))).toThrow(GateError);
    expect(() => registry.register(tool('dup'))).toThrow(/a tool named dup is already registered/);
    expect(registry.get('dup')?.tool).toBe(first);
  });

  it('lets a removed name be registered again', () => {
    const registry = new ToolRegistry();
    registry.register(tool('again'));
    registry.remove('again');
    expect(() => registry.register(tool('again'))).not.toThrow();
  });

  it.each<SideEffect[]>([['FsWrite'], ['ProcessSpawn'], ['NetWrite'], ['DbWrite'], ['FsRead', 'FsWrite']])(
    'in read-only mode refuses a tool declaring %j, naming the effect',
    (...effects) => {
      const registry = new ToolRegistry({ readOnly: true });
      let caught: unknown;
      try {
        registry.register(tool('writer', effects));
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GateError);
      expect((caught as GateError).code).toBe('EPERMISSION');
      const mutating = effects.filter((effect) => effect !== 'FsRead');
      expect((caught as GateError).message).toContain(`declares ${mutating.join(', ')}`);
      expect(registry.has('writer')).toBe(false);
    },
  );

  it('in read-only mode accepts pure and read-only tools', () => {
    const registry = new ToolRegistry({ readOnly: true });
    registry.register(tool('pure'));
    registry.register(tool('reader', ['FsRead', 'NetRead', 'DbRead']));
    expect(registry.list().map((manifest) => manifest.name)).toEqual(['pure', 'reader']);
    expect(registry.readOnly).toBe(true);
  });
});
