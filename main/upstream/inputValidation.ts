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

/** A compiled check, and whether it may run without the watchdog for arguments of a given size. */
interface Validator {
  validate: ValidateFunction;
  /**
   * JSON values in the schema when its checks are bounded by its size times the arguments' (no
   * `$ref`, pattern or uniqueItems); undefined when they are not, and every call runs under the watchdog.
   */
  boundedWeight: number | undefined;
}

const validators = new WeakMap<UpstreamToolDefinition, Validator>();

/**
 * Keywords whose cost is not bounded by the schema's size times the arguments': a `$ref` may share
 * one subschema between branches (exponential when nested or recursive), a pattern may backtrack,
 * uniqueItems compares every pair of items.
 */
const UNBOUNDED_KEYWORDS = new Set(['$ref', '$dynamicRef', '$recursiveRef', 'pattern', 'patternProperties', 'uniqueItems']);
/** Keywords holding data, not subschemas: their names inside are not keywords (their size still counts). */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples']);
/** Keywords holding a map of names to subschemas: the names are not keywords. */
const SCHEMA_MAPS = new Set(['properties', '$defs', 'definitions', 'dependentSchemas', 'dependencies']);

/** Levels of a schema boundedWeight walks. */
const MAX_WALKED_DEPTH = 256;

/** How many JSON values a value holds, itself included. */
function valueCount(value: unknown, depth = 0): number {
  if (typeof value !== 'object' || value === null) return 1;
  if (depth > MAX_WALKED_DEPTH) return Number.POSITIVE_INFINITY;
  let count = 1;
  for (const member of Array.isArray(value) ? value : Object.values(value)) count += valueCount(member, depth + 1);
  return count;
}

/**
 * The schema's size in JSON values when none of its subschemas uses an unbounded keyword, else
 * undefined. Without them each subschema is applied to each part of the arguments at most once, so a
 * check costs at most about the schema's size times the arguments'. A name it cannot place is taken
 * for a keyword: a doubt sends calls to the watchdog, never past it.
 */
function boundedWeight(schema: unknown, depth = 0): number | undefined {
  if (typeof schema !== 'object' || schema === null) return 1;
  // A schema nested this deep is no common tool's: its calls go to the watchdog rather than walk it.
  if (depth > MAX_WALKED_DEPTH) return undefined;
  const deeper = (value: unknown) => boundedWeight(value, depth + 1);
  if (Array.isArray(schema)) return sumOf(schema.map(deeper));
  let weight = 1;
  for (const [keyword, value] of Object.entries(schema)) {
    if (UNBOUNDED_KEYWORDS.has(keyword)) return undefined;
    const part = DATA_KEYWORDS.has(keyword)
      ? valueCount(value)
      : SCHEMA_MAPS.has(keyword) && typeof value === 'object' && value !== null && !Array.isArray(value)
        ? sumOf(Object.values(value).map(deeper))
        : deeper(value);
    if (part === undefined) return undefined;
    weight += part;
  }
  return weight;
}

function sumOf(parts: Array<number | undefined>): number | undefined {
  let sum = 0;
  for (const part of parts) {
    if (part === undefined) return undefined;
    sum += part;
  }
  return sum;
}

/**
 * Schema values times argument bytes up to which a bounded check runs without the watchdog: a
 * millisecond or so of ajv's checks at most, against about 0.2–0.6 ms for the watchdog's thread alone.
 */
const DIRECT_CHECK_WEIGHT = 1_000_000;

/**
 * How long one call's arguments may take to check. A server's schema is its own: a `pattern` such
 * as ^(a+)+$ backtracks for hours on a 40-character argument, and the check runs on the gate's main
 * thread, so it runs under V8's watchdog and a call past this is refused instead.
 */
export const VALIDATION_BUDGET_MS = 250;

const sandboxed = createContext({ validate: undefined, args: undefined });
const runValidate = new Script('validate(args)');

/** The arguments' size as JSON text (what bounds a check's work over them), or Infinity when they have none. */
function argumentBytes(args: unknown): number {
  try {
    return JSON.stringify(args)?.length ?? Number.POSITIVE_INFINITY;
  } catch {
    return Number.POSITIVE_INFINITY;
  }
}

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
  return schemaValidator(definition, validators, definition.inputSchema, 'inputSchema', 'these arguments', "the call was refused; shorten the argument, or ask the server's author for a simpler pattern");
}

const resultValidators = new WeakMap<UpstreamToolDefinition, Validator>();

/**
 * A check of a tool's structuredContent against the outputSchema it declares (MCP: a tool that
 * declares one must return structured content that conforms): a message naming the first value at
 * fault, or undefined. Runs under the same watchdog as the arguments' check.
 */
export function resultValidator(definition: UpstreamToolDefinition & { outputSchema: Record<string, unknown> }): (result: unknown) => string | undefined {
  return schemaValidator(definition, resultValidators, definition.outputSchema, 'outputSchema', 'its result', "the result was refused; ask the server's author for a simpler pattern");
}

function schemaValidator(
  definition: UpstreamToolDefinition,
  cache: WeakMap<UpstreamToolDefinition, Validator>,
  schema: Record<string, unknown>,
  schemaName: string,
  checked: string,
  outcome: string,
): (value: unknown) => string | undefined {
  let validator = cache.get(definition);
  if (!validator) {
    validator = { validate: compileToolSchema(schema), boundedWeight: boundedWeight(schema) };
    cache.set(definition, validator);
  }
  const { validate: compiled, boundedWeight: weight } = validator;
  return (value) => {
    // A check bounded by sizes that are both small cannot stall the gate: it runs without the
    // watchdog, whose thread costs more than most checks. Anything else runs under it.
    const direct = weight !== undefined && weight * argumentBytes(value) <= DIRECT_CHECK_WEIGHT;
    const valid = direct ? compiled(value) === true : validateWithin(compiled, value);
    if (valid === 'timeout') {
      return `/: the server's ${schemaName} took over ${VALIDATION_BUDGET_MS} ms to check ${checked} (a "pattern" that backtracks, most likely), so ${outcome}`;
    }
    return valid ? undefined : describe(compiled.errors![0]!);
  };
}
