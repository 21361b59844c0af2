/**
 * RFC 8785 JSON Canonicalization Scheme: object keys sorted by UTF-16 code units, no white space,
 * numbers in ECMAScript shortest form, strings with the minimal JSON escapes. Two values that are
 * equal as JSON always serialize to the same string, so their hashes can be compared.
 */
export function canonicalize(value: unknown): string {
  return serialize(value, '$');
}

function serialize(value: unknown, path: string): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`${path}: ${value} has no JSON form`);
      return JSON.stringify(value);
    case 'string':
      return serializeString(value, path);
    case 'object':
      if (Array.isArray(value)) {
        return `[${value.map((item, i) => (item === undefined ? 'null' : serialize(item, `${path}[${i}]`))).join(',')}]`;
      }
      return serializeObject(value as Record<string, unknown>, path);
    default:
      throw new TypeError(`${path}: a ${typeof value} has no JSON form`);
  }
}

function serializeObject(object: Record<string, unknown>, path: string): string {
  const prototype = Object.getPrototypeOf(object);
  if (prototype !== Object.prototype && prototype !== null) {
    throw new TypeError(`${path}: only plain objects have a canonical JSON form`);
  }
  const members: string[] = [];
  for (const key of Object.keys(object).sort()) {
    const member = object[key];
    if (member === undefined) continue;
    members.push(`${serializeString(key, path)}:${serialize(member, `${path}.${key}`)}`);
  }
  return `{${members.join(',')}}`;
}

/** A surrogate that is not half of a pair. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function serializeString(text: string, path: string): string {
  if (LONE_SURROGATE.test(text)) throw new TypeError(`${path}: string holds a lone surrogate`);
  return JSON.stringify(text);
}

/** Replaces lone surrogates with U+FFFD so that any string can be canonicalized. */
export function toWellFormed(text: string): string {
  return LONE_SURROGATE.test(text)
    ? text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD')
    : text;
}

/** A JSON value with every string and key made well-formed, so that it always has a canonical form. */
export function toWellFormedJson(value: unknown): unknown {
  if (typeof value === 'string') return toWellFormed(value);
  if (Array.isArray(value)) return value.map(toWellFormedJson);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [toWellFormed(key), toWellFormedJson(member)]));
  }
  return value;
}
