import { UpstreamToolDefinitionSchema, type RefusedTool, type UpstreamToolDefinition } from '../../shared/upstream';
import { headerParamFault } from './headerParams';
import { compileToolSchema } from './inputValidation';
import { countOf, nounFor } from '../../shared/plural';

/**
 * What a server's tools/list may hold before the gate registers any of it: a server is the person's
 * own program but its list is untrusted data, so every entry is checked and a bad one refused alone.
 */

/** A tool's own name as MCP allows it, and short enough to prefix with its server's name. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The bounds a list is vetted against (a slice of UpstreamLimits). */
export interface VettingLimits {
  /** Tools past this many are refused. */
  maxTools: number;
  /** A definition whose JSON is longer than this many bytes is refused. */
  maxDefinitionBytes: number;
  /**
   * The server speaks 2026-07-28 over Streamable HTTP, where a tool's `x-mcp-header` marks are
   * mirrored into headers: a tool whose marks break SEP-2243's rules is refused.
   */
  headerParams?: boolean;
}

/** What a name in a refusal reads as when the entry has no usable one. */
function nameOf(entry: unknown, index: number): string {
  const name = typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined;
  return typeof name === 'string' ? name.slice(0, 100) : `(entry ${index + 1}, no name)`;
}

/** Why one definition cannot be registered, or undefined when it can. */
function refusalOf(entry: unknown, limits: VettingLimits): string | undefined {
  const name = typeof entry === 'object' && entry !== null ? (entry as { name?: unknown }).name : undefined;
  if (typeof name !== 'string' || !TOOL_NAME.test(name)) {
    return 'a tool name is 1 to 64 letters, digits, _, . and -';
  }
  const bytes = Buffer.byteLength(JSON.stringify(entry));
  if (bytes > limits.maxDefinitionBytes) {
    return `its definition is ${bytes} bytes, over the ${limits.maxDefinitionBytes} bytes the gate takes`;
  }
  const parsed = UpstreamToolDefinitionSchema.safeParse(entry);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return `${issue.path.join('.') || 'the definition'}: ${issue.message}`;
  }
  if (parsed.data.inputSchema.type !== 'object') {
    return `its inputSchema's type is ${JSON.stringify(parsed.data.inputSchema.type) ?? 'missing'}, but a tool's arguments are an object ("type": "object")`;
  }
  for (const field of ['inputSchema', 'outputSchema'] as const) {
    const schema = parsed.data[field];
    if (!schema) continue;
    try {
      compileToolSchema(schema);
    } catch (error) {
      return `its ${field} is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const headerFault = limits.headerParams ? headerParamFault(parsed.data.inputSchema) : undefined;
  if (headerFault) return `its arguments cannot be sent as MCP headers: ${headerFault}`;
  return undefined;
}

/**
 * Splits a server's tools/list into the definitions the gate registers and the ones it refuses,
 * each with why: names shared by several entries (every one of them: which is genuine is unknown),
 * names MCP does not allow, oversized definitions, schemas that are not JSON Schema or not for an
 * object, invalid `x-mcp-header` marks (when limits.headerParams), and everything past limits.maxTools.
 */
export function vetToolList(tools: unknown[], limits: VettingLimits): { tools: UpstreamToolDefinition[]; refused: RefusedTool[] } {
  const refused: RefusedTool[] = [];
  const kept = tools.slice(0, limits.maxTools);
  for (const [offset, entry] of tools.slice(limits.maxTools).entries()) {
    refused.push({
      name: nameOf(entry, limits.maxTools + offset),
      message: `the server lists ${tools.length} tools and the gate takes the first ${limits.maxTools}: ${countOf(tools.length - limits.maxTools, 'tool')} after them ${nounFor(tools.length - limits.maxTools, 'is', 'are')} refused`,
    });
  }
  const counts = new Map<string, number>();
  for (const [index, entry] of kept.entries()) counts.set(nameOf(entry, index), (counts.get(nameOf(entry, index)) ?? 0) + 1);
  const registered: UpstreamToolDefinition[] = [];
  for (const [index, entry] of kept.entries()) {
    const name = nameOf(entry, index);
    const times = counts.get(name)!;
    const why = times > 1 ? `the server lists ${times} tools named "${name}"; none of them is registered, since which one is meant cannot be told` : refusalOf(entry, limits);
    if (why) refused.push({ name, message: why });
    else registered.push(UpstreamToolDefinitionSchema.parse(entry));
  }
  return { tools: registered, refused };
}
