import { describe, expect, it } from 'vitest';
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
