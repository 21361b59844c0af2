import { Script } from 'node:vm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { argumentValidator } from '../../main/upstream/inputValidation';

const writeFile = {
  name: 'write_file',
  inputSchema: {
    type: 'object',
    properties: { path: { type: 'string' }, options: { type: 'object', properties: { mode: { type: 'integer', minimum: 0 } } } },
    required: ['path'],
    additionalProperties: false,
  },
};

describe('checking a call’s arguments against its tool’s inputSchema', () => {
  const validate = argumentValidator(writeFile);

  it('passes valid arguments', () => {
    expect(validate({ path: 'a.txt', options: { mode: 420 } })).toBeUndefined();
  });

  it('names the argument at fault', () => {
    expect(validate({ path: 7 })).toBe('/path: must be string');
    expect(validate({ path: 'a', options: { mode: -1 } })).toBe('/options/mode: must be >= 0');
    expect(validate({})).toBe("/: must have required property 'path'");
    expect(validate({ path: 'a', force: true })).toBe('/: must NOT have additional properties (force)');
  });

  it('checks draft-07 schemas by their own rules', () => {
    const legacy = argumentValidator({
      name: 'legacy',
      inputSchema: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { n: { type: 'integer', exclusiveMinimum: 0 } } },
    });
    expect(legacy({ n: 0 })).toBe('/n: must be > 0');
    expect(legacy({ n: 1 })).toBeUndefined();
  });

  it('compiles once per definition', () => {
    expect(argumentValidator(writeFile)({ path: 1 })).toBe(validate({ path: 1 }));
  });
});

describe('which checks run under the watchdog (a thread of its own that stops a check past its budget)', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** Whether checking `args` against `inputSchema` went through the watchdog, and what it said. */
  function check(inputSchema: Record<string, unknown>, args: unknown): { watched: boolean; said: string | undefined } {
    const watchdog = vi.spyOn(Script.prototype, 'runInContext');
    const said = argumentValidator({ name: 't', inputSchema })(args);
    return { watched: watchdog.mock.calls.length > 0, said };
  }

  it('checks small arguments against a schema without shared subschemas, patterns or pairwise checks directly', () => {
    // An argument named "pattern", and data holding keyword names, are not keywords.
    const search = { type: 'object', properties: { pattern: { type: 'string' }, mode: { enum: [{ $ref: 'x' }, 'plain'] } }, required: ['pattern'] };
    expect(check(search, { pattern: 'a+', mode: 'plain' })).toEqual({ watched: false, said: undefined });
    expect(check(search, { mode: 'plain' })).toEqual({ watched: false, said: "/: must have required property 'pattern'" });
    expect(check(writeFile.inputSchema, { path: 'a.txt', options: { mode: 420 } })).toEqual({ watched: false, said: undefined });
  });

  it.each([
    ['a pattern', { type: 'object', properties: { q: { type: 'string', pattern: '^a+$' } } }],
    ['patternProperties', { type: 'object', patternProperties: { '^x': { type: 'string' } } }],
    ['a $ref', { type: 'object', properties: { q: { $ref: '#/$defs/q' } }, $defs: { q: { type: 'string' } } }],
    ['uniqueItems', { type: 'object', properties: { q: { type: 'array', uniqueItems: true } } }],
    ['a pattern deep in anyOf', { type: 'object', properties: { q: { anyOf: [{ type: 'number' }, { items: { not: { pattern: 'x' } } }] } } }],
  ])('checks every call under the watchdog when the schema has %s', (_, inputSchema) => {
    expect(check(inputSchema, { q: 'a' }).watched).toBe(true);
  });

  it('checks arguments too large for the schema to check quickly under the watchdog, with the same answer', () => {
    const big = { path: 'a.txt', options: { mode: 1 }, pad: 'x'.repeat(200_000) };
    expect(check(writeFile.inputSchema, big)).toEqual({ watched: true, said: '/: must NOT have additional properties (pad)' });
  });
});
