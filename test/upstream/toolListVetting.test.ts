import { describe, expect, it } from 'vitest';
import { headerParamFault } from '../../main/upstream/headerParams';
import { vetToolList } from '../../main/upstream/toolListVetting';

const limits = { maxTools: 512, maxDefinitionBytes: 65_536 };
const object = { type: 'object', properties: {} };

function refusalFor(tool: unknown): string | undefined {
  return vetToolList([tool], limits).refused[0]?.message;
}

describe('vetting a server’s tool list', () => {
  it('registers tools with JSON Schemas of draft 2020-12 and draft-07', () => {
    const { tools, refused } = vetToolList(
      [
        { name: 'read', description: 'Reads', inputSchema: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', $defs: { p: { type: 'string' } }, dependentRequired: {} } },
        { name: 'legacy.v1', inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', definitions: { x: { type: 'string' } } } },
      ],
      limits,
    );
    expect(refused).toEqual([]);
    expect(tools.map((tool) => tool.name)).toEqual(['read', 'legacy.v1']);
  });

  it('refuses every entry of a duplicated name, naming it, and keeps the others', () => {
    const { tools, refused } = vetToolList([{ name: 'a', inputSchema: object }, { name: 'b', inputSchema: object }, { name: 'a', inputSchema: object }], limits);
    expect(tools.map((tool) => tool.name)).toEqual(['b']);
    expect(refused).toEqual([
      { name: 'a', message: expect.stringContaining('2 tools named "a"') },
      { name: 'a', message: expect.stringContaining('2 tools named "a"') },
    ]);
  });

  it.each([['bad name'], ['a'.repeat(65)], [''], ['a/b'], ['ütf']])('refuses the name %j', (name) => {
    expect(refusalFor({ name, inputSchema: object })).toMatch(/1 to 64 letters, digits/);
  });

  it('refuses an entry without a name, naming its place in the list', () => {
    expect(vetToolList([{ inputSchema: object }, 'a string'], limits).refused.map((tool) => tool.name)).toEqual(['(entry 1, no name)', '(entry 2, no name)']);
  });

  it('refuses an inputSchema that is not a valid JSON Schema, with ajv’s reason', () => {
    expect(refusalFor({ name: 't', inputSchema: { type: 'object', properties: { p: { type: 'nonsense' } } } })).toMatch(/inputSchema is not a valid JSON Schema: .*must be equal to one of the allowed values/);
    expect(refusalFor({ name: 't', inputSchema: { type: 'object', properties: { p: { $ref: 'https://example.com/s.json' } } } })).toMatch(/can't resolve reference/);
    expect(refusalFor({ name: 't', inputSchema: { type: 'object' }, outputSchema: { type: 'object', required: 'yes' } })).toMatch(/outputSchema is not a valid JSON Schema/);
  });

  it('refuses an inputSchema that is not for an object, or none at all', () => {
    expect(refusalFor({ name: 't', inputSchema: { type: 'array' } })).toMatch(/type is "array", but a tool's arguments are an object/);
    expect(refusalFor({ name: 't', inputSchema: {} })).toMatch(/type is missing/);
    expect(refusalFor({ name: 't' })).toMatch(/^inputSchema: /);
    expect(refusalFor({ name: 't', inputSchema: object, description: 42 })).toMatch(/^description: /);
  });

  it('refuses a definition over maxDefinitionBytes, saying both sizes', () => {
    expect(refusalFor({ name: 't', description: 'x'.repeat(70_000), inputSchema: object })).toMatch(/its definition is 700\d\d bytes, over the 65536 bytes/);
  });

  it('takes the first maxTools tools and refuses the rest, saying how many', () => {
    const listed = Array.from({ length: 5 }, (_, index) => ({ name: `t${index}`, inputSchema: object }));
    const { tools, refused } = vetToolList(listed, { ...limits, maxTools: 3 });
    expect(tools.map((tool) => tool.name)).toEqual(['t0', 't1', 't2']);
    expect(refused.map((tool) => tool.name)).toEqual(['t3', 't4']);
    expect(refused[0]!.message).toBe('the server lists 5 tools and the gate takes the first 3: 2 tools after them are refused');
  });

  it('lets two tools share a schema $id', () => {
    const schema = { $id: 'https://example.com/args', type: 'object' };
    expect(vetToolList([{ name: 'a', inputSchema: schema }, { name: 'b', inputSchema: { ...schema } }], limits).refused).toEqual([]);
  });

  describe('x-mcp-header marks (SEP-2243), checked for a 2026-07-28 http server', () => {
    const marked = (property: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 't', inputSchema: { type: 'object', properties: { p: property }, ...extra } });
    const headerLimits = { ...limits, headerParams: true };

    it('keeps valid marks on string, integer and boolean properties, at any depth of properties', () => {
      const nested = { type: 'object', properties: { inner: { type: 'integer', 'x-mcp-header': 'Inner' } } };
      const { tools, refused } = vetToolList([marked({ type: 'string', 'x-mcp-header': 'Region' }), { name: 'u', inputSchema: { type: 'object', properties: { a: { type: 'boolean', 'x-mcp-header': 'A' }, n: nested } } }], headerLimits);
      expect(refused).toEqual([]);
      expect(tools.map((tool) => tool.name)).toEqual(['t', 'u']);
    });

    it.each([
      ['an empty name', marked({ type: 'string', 'x-mcp-header': '' }), /non-empty string/],
      ['a name with a space', marked({ type: 'string', 'x-mcp-header': 'My Region' }), /not an HTTP header name/],
      ['a name with a colon', marked({ type: 'string', 'x-mcp-header': 'A:B' }), /not an HTTP header name/],
      ['a non-ASCII name', marked({ type: 'string', 'x-mcp-header': 'Région' }), /not an HTTP header name/],
      ['a number property', marked({ type: 'number', 'x-mcp-header': 'Score' }), /string, integer or boolean/],
      ['an object property', marked({ type: 'object', 'x-mcp-header': 'Data' }), /string, integer or boolean/],
      ['a mark under items', marked({ type: 'array', items: { type: 'string', 'x-mcp-header': 'Item' } }), /reached through "properties" alone/],
      ['a mark under anyOf', marked({ anyOf: [{ type: 'string', 'x-mcp-header': 'Any' }] }), /reached through "properties" alone/],
      ['a mark on the schema itself', { name: 't', inputSchema: { type: 'object', 'x-mcp-header': 'Root' } }, /reached through "properties" alone/],
      ['a name used twice, in another case', { name: 't', inputSchema: { type: 'object', properties: { a: { type: 'string', 'x-mcp-header': 'MyField' }, b: { type: 'string', 'x-mcp-header': 'myfield' } } } }, /also used by a/],
    ])('refuses %s', (_, tool, why) => {
      expect(vetToolList([tool], headerLimits).refused[0]?.message).toMatch(why);
      // The same tool from a 2025 or stdio server: the mark means nothing there.
      expect(vetToolList([tool], limits).refused).toEqual([]);
    });

    it('refuses a schema nested too deep to walk for marks, with a fault rather than a stack overflow', () => {
      let schema: Record<string, unknown> = { type: 'string', 'x-mcp-header': 'Deep' };
      for (let level = 0; level < 20_000; level++) schema = { type: 'object', properties: { p: schema } };
      expect(headerParamFault(schema)).toMatch(/nests deeper than \d+ levels/);
      // A deep schema without any mark is refused the same way: its marks cannot be vouched for.
      let plain: Record<string, unknown> = { type: 'string' };
      for (let level = 0; level < 20_000; level++) plain = { type: 'object', properties: { p: plain } };
      expect(headerParamFault(plain)).toMatch(/nests deeper than/);
      // Well within the bound, a deep property is walked and its mark kept.
      let fine: Record<string, unknown> = { type: 'string', 'x-mcp-header': 'Fine' };
      for (let level = 0; level < 100; level++) fine = { type: 'object', properties: { p: fine } };
      expect(headerParamFault(fine)).toBeUndefined();
    });
  });
});
