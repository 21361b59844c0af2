import { compactJson } from '../../format/json';

/** One argument of an upstream tool, as its input schema declares it. */
export interface SchemaArgument {
  name: string;
  /** Its JSON Schema type in words: `string`, `string | null`, `one of "a", "b"`, or `any`. */
  type: string;
  required: boolean;
  /** The server's description of it: untrusted text, shown as text. */
  description: string | undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** How deep nested item and alternative schemas are described before they read as `…`. */
const TYPE_DEPTH = 4;

/** A property's type in words; a schema of any other shape reads `any` (the definition beside it shows it whole). */
function typeWords(property: Record<string, unknown>, depth = 0): string {
  if (depth > TYPE_DEPTH) return '…';
  const { type } = property;
  if (Array.isArray(property.enum)) return `one of ${property.enum.map((value) => compactJson(value)).join(', ')}`;
  if (typeof type === 'string') {
    const items = isRecord(property.items) ? property.items : undefined;
    return type === 'array' && items ? `array of ${typeWords(items, depth + 1)}` : type;
  }
  if (Array.isArray(type)) return type.map(String).join(' | ');
  const alternatives = property.anyOf ?? property.oneOf;
  if (Array.isArray(alternatives)) return alternatives.map((alternative) => (isRecord(alternative) ? typeWords(alternative, depth + 1) : 'any')).join(' | ');
  return 'any';
}

/**
 * The arguments an upstream tool's input schema declares (its top-level properties, in the order
 * the server sent them). The schema comes from the server: anything that is not the expected shape
 * yields no argument rather than an error, and the definition itself is shown beside them.
 */
export function schemaArguments(inputSchema: Record<string, unknown>): SchemaArgument[] {
  const properties = isRecord(inputSchema.properties) ? inputSchema.properties : {};
  const required = new Set(Array.isArray(inputSchema.required) ? inputSchema.required.filter((name) => typeof name === 'string') : []);
  return Object.entries(properties).map(([name, property]) => {
    const described = isRecord(property) ? property : {};
    return {
      name,
      type: typeWords(described),
      required: required.has(name),
      description: typeof described.description === 'string' ? described.description : undefined,
    };
  });
}
