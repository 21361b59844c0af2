import { createRequire } from 'node:module';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import type { UpstreamToolDefinition } from '../../shared/upstream';

/**
 * Upstream servers describe their tools' arguments in JSON Schema (draft 2020-12 by MCP's spec,
 * draft-07 by many older servers); the gate checks every call's arguments against it before the
 * server sees them. ajv compiles each schema; no remote `$ref` is ever fetched.
 */

const ajv = new Ajv2020({ strict: false, allErrors: false, validateFormats: false, logger: false });
// Read through require: the bundler leaves a JSON import without the attribute Node insists on.
ajv.addMetaSchema(createRequire(import.meta.url)('ajv/dist/refs/json-schema-draft-07.json') as Record<string, unknown>);

/**
 * Compiles one tool's schema, or throws ajv's reason it is not a valid JSON Schema. The compiled
 * function is kept only by its caller: ajv's own cache is emptied, so two servers' schemas sharing an
 * `$id` never collide and a server's changing lists do not pile up.
 */
export function compileToolSchema(schema: Record<string, unknown>): ValidateFunction {
  try {
    return ajv.compile(schema);
  } finally {
    ajv.removeSchema(schema);
  }
}

/** One ajv error as a person reads it: `/path: must be string`. */
function describe(error: ErrorObject): string {
  const extra = error.keyword === 'additionalProperties' ? ` (${String(error.params.additionalProperty)})` : '';
  return `${error.instancePath || '/'}: ${error.message ?? 'is not valid'}${extra}`;
}

const validators = new WeakMap<UpstreamToolDefinition, ValidateFunction>();

/**
 * A check of a tool's arguments against its inputSchema: a message naming the first argument at
 * fault, or undefined when they are valid. Compiled once per definition object.
 */
export function argumentValidator(definition: UpstreamToolDefinition): (args: unknown) => string | undefined {
  let validate = validators.get(definition);
  if (!validate) {
    validate = compileToolSchema(definition.inputSchema);
    validators.set(definition, validate);
  }
  const compiled = validate;
  return (args) => (compiled(args) ? undefined : describe(compiled.errors![0]!));
}
