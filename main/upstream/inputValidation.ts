import { createRequire } from 'node:module';
import { createContext, Script } from 'node:vm';
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
 * How long one call's arguments may take to check. A server's schema is its own: a `pattern` such
 * as ^(a+)+$ backtracks for hours on a 40-character argument, and the check runs on the gate's main
 * thread, so it runs under V8's watchdog and a call past this is refused instead.
 */
export const VALIDATION_BUDGET_MS = 250;

const sandboxed = createContext({ validate: undefined, args: undefined });
const runValidate = new Script('validate(args)');

/** Runs a compiled check within the budget: whether it passed, or 'timeout'. */
function validateWithin(validate: ValidateFunction, args: unknown): boolean | 'timeout' {
  Object.assign(sandboxed, { validate, args });
  try {
    return runValidate.runInContext(sandboxed, { timeout: VALIDATION_BUDGET_MS }) === true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw error;
  } finally {
    Object.assign(sandboxed, { validate: undefined, args: undefined });
  }
}

/**
 * A check of a tool's arguments against its inputSchema: a message naming the first argument at
 * fault, or undefined when they are valid. Compiled once per definition object; a check that takes
 * longer than VALIDATION_BUDGET_MS refuses the call.
 */
export function argumentValidator(definition: UpstreamToolDefinition): (args: unknown) => string | undefined {
  let validate = validators.get(definition);
  if (!validate) {
    validate = compileToolSchema(definition.inputSchema);
    validators.set(definition, validate);
  }
  const compiled = validate;
  return (args) => {
    const valid = validateWithin(compiled, args);
    if (valid === 'timeout') {
      return `/: the server's inputSchema took over ${VALIDATION_BUDGET_MS} ms to check these arguments (a "pattern" that backtracks, most likely), so the call was refused; shorten the argument, or ask the server's author for a simpler pattern`;
    }
    return valid ? undefined : describe(compiled.errors![0]!);
  };
}
