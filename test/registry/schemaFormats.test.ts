import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020';
import { describe, expect, it } from 'vitest';
import type { ToolManifest } from '../../shared/manifest';
import { exportToolSchemas } from '../../main/registry/schemaFormats';
import { BUILTIN_TOOLS } from '../../main/tools/builtinTools';

const manifests = BUILTIN_TOOLS.map((tool) => tool.manifest);
const byName = (name: string): ToolManifest => manifests.find((manifest) => manifest.name === name)!;

/** Compiles a JSON Schema the way an agent's client would (JSON Schema 2020-12, zod's dialect). */
function validator(schema: unknown) {
  return new Ajv2020({ strict: false }).compile(schema as object);
}

const GOOD_WRITE = { path: 'notes/todo.md', content: 'hello' };
const BAD_WRITES = [{ path: 'notes/todo.md' }, { path: 7, content: 'x' }, { path: 'a', content: 'x', mode: 'append' }, { path: '', content: 'x' }];

describe('exportToolSchemas', () => {
  it('mcp: each entry is a valid MCP Tool whose inputSchema accepts good input and rejects bad', () => {
    const exported = exportToolSchemas(manifests, 'mcp') as Array<Record<string, any>>;
    expect(exported.map((tool) => tool.name)).toEqual(manifests.map((manifest) => manifest.name));
    for (const tool of exported) expect(ToolSchema.safeParse(tool).success).toBe(true);

    const write = exported.find((tool) => tool.name === 'write_file')!;
    expect(write.inputSchema.type).toBe('object');
    const validate = validator(write.inputSchema);
    expect(validate(GOOD_WRITE)).toBe(true);
    for (const bad of BAD_WRITES) expect(validate(bad)).toBe(false);
  });

  it('mcp: annotations follow the manifest (writes are destructive, reads are read-only)', () => {
    const exported = exportToolSchemas(manifests, 'mcp') as Array<Record<string, any>>;
    const write = exported.find((tool) => tool.name === 'write_file')!;
    const echo = exported.find((tool) => tool.name === 'echo')!;
    expect(write.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(echo.annotations).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true });
    expect(write._meta).toEqual({ 'toolgate/tier': 'ELEVATED', 'toolgate/version': byName('write_file').version });
  });

  it('mcp: the outputSchema validates what the tool really returns', () => {
    const exported = exportToolSchemas([byName('hash')], 'mcp') as Array<Record<string, any>>;
    const validate = validator(exported[0]!.outputSchema);
    expect(validate({ algorithm: 'blake3', hex: 'a'.repeat(64) })).toBe(true);
    expect(validate({ algorithm: 'sha256', hex: 'a'.repeat(64) })).toBe(false);
  });

  it('openai: {type: "function", function: {name, description, parameters}} with a working schema', () => {
    const [exported] = exportToolSchemas([byName('write_file')], 'openai') as Array<Record<string, any>>;
    expect(exported).toEqual({
      type: 'function',
      function: { name: 'write_file', description: byName('write_file').description, parameters: expect.any(Object) },
    });
    const validate = validator(exported!.function.parameters);
    expect(validate(GOOD_WRITE)).toBe(true);
    for (const bad of BAD_WRITES) expect(validate(bad)).toBe(false);
  });

  it('anthropic: {name, description, input_schema} with a working schema', () => {
    const [exported] = exportToolSchemas([byName('write_file')], 'anthropic') as Array<Record<string, any>>;
    expect(Object.keys(exported!).sort()).toEqual(['description', 'input_schema', 'name']);
    expect(exported!.name).toBe('write_file');
    const validate = validator(exported!.input_schema);
    expect(validate(GOOD_WRITE)).toBe(true);
    for (const bad of BAD_WRITES) expect(validate(bad)).toBe(false);
  });

  it('keeps a default-valued field optional for the agent (list_dir path defaults to ".")', () => {
    const [exported] = exportToolSchemas([byName('list_dir')], 'anthropic') as Array<Record<string, any>>;
    const validate = validator(exported!.input_schema);
    expect(validate({})).toBe(true);
    expect(validate({ path: 'src' })).toBe(true);
    expect(validate({ path: 3 })).toBe(false);
  });
});
