/**
 * SEP-2243 (MCP 2026-07-28, Streamable HTTP): a tool's inputSchema may mark a property with
 * `x-mcp-header: "Name"`, and the client then mirrors that argument into an `Mcp-Param-Name`
 * header of each tools/call. A client MUST exclude a tool whose marks break the rules, since its
 * calls cannot be mirrored as the server expects. The gate vets lists itself (toolListVetting.ts),
 * not through the SDK's own listTools(), so it applies the rules here.
 */

import { isJsonObject, MAX_ARGUMENT_DEPTH } from '../../shared/jsonLimits';

const MARK = 'x-mcp-header';
/**
 * How deep the walk goes: a schema nested deeper is refused with a fault of its own rather than
 * walked (the list's vetting bounds schemas before this, but the walk does not lean on that).
 */
const MAX_SCHEMA_DEPTH = MAX_ARGUMENT_DEPTH * 4;
/** RFC 9110 `token`: no empty name, space, control character or delimiter (`:` included). */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** The property types a mark may sit on: `number` is left out by the spec (its text form is not exact). */
const MARKABLE_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not reached through `properties` alone: a mark under them is invalid. */
const UNREACHABLE = ['items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames', 'not', 'if', 'then', 'else'];
/** The same, holding a list of subschemas. */
const UNREACHABLE_LISTS = ['oneOf', 'anyOf', 'allOf'];
/** The same, holding a name → subschema map. */
const UNREACHABLE_MAPS = ['patternProperties', 'dependentSchemas', '$defs', 'definitions'];

/** Why a tool's `x-mcp-header` marks are invalid (the first fault found), or undefined when they are fine or absent. */
export function headerParamFault(inputSchema: Record<string, unknown>): string | undefined {
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (!isJsonObject(node)) return undefined;
    if (path.length > MAX_SCHEMA_DEPTH) return `the inputSchema nests deeper than ${MAX_SCHEMA_DEPTH} levels, too deep to check its x-mcp-header marks`;
    const where = path.join('.') || 'the inputSchema itself';
    if (MARK in node) {
      const name = node[MARK];
      if (!reachable || path.length === 0) return `${where}: x-mcp-header may only mark a property reached through "properties" alone`;
      if (typeof name !== 'string' || name === '') return `${where}: x-mcp-header must be a non-empty string`;
      if (!TOKEN.test(name)) return `${where}: x-mcp-header ${JSON.stringify(name)} is not an HTTP header name (no spaces, colons, control or non-ASCII characters)`;
      if (typeof node.type !== 'string' || !MARKABLE_TYPES.has(node.type)) return `${where}: x-mcp-header may only mark a string, integer or boolean property, not ${JSON.stringify(node.type) ?? 'an untyped one'}`;
      const earlier = seen.get(name.toLowerCase());
      if (earlier !== undefined) return `${where}: x-mcp-header ${JSON.stringify(name)} is also used by ${earlier} (names are compared ignoring case)`;
      seen.set(name.toLowerCase(), where);
    }
    const children: [unknown, string, boolean][] = [];
    if (isJsonObject(node.properties)) for (const [key, child] of Object.entries(node.properties)) children.push([child, key, reachable]);
    for (const key of UNREACHABLE) children.push([node[key], `<${key}>`, false]);
    for (const key of UNREACHABLE_LISTS) if (Array.isArray(node[key])) for (const child of node[key]) children.push([child, `<${key}>`, false]);
    for (const key of UNREACHABLE_MAPS) if (isJsonObject(node[key])) for (const child of Object.values(node[key])) children.push([child, `<${key}>`, false]);
    for (const [child, step, childReachable] of children) {
      const fault = visit(child, [...path, step], childReachable);
      if (fault) return fault;
    }
    return undefined;
  };
  return visit(inputSchema, [], true);
}
