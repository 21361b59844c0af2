import { isWellFormedText } from './jsonLimits';

/**
 * RFC 8785 JSON Canonicalization Scheme: object keys sorted by UTF-16 code units, no white space,
 * numbers in ECMAScript shortest form, strings with the minimal JSON escapes. Two values that are
 * equal as JSON always serialize to the same string, so their hashes can be compared.
 */
export function canonicalize(value: unknown): string {
  const ordered = inStringifyOrder(value);
  // undefined alone has no JSON form: the careful writer says so, where JSON.stringify would return undefined.
  return ordered === UNORDERABLE || ordered === undefined ? writeCanonical(value) : JSON.stringify(ordered);
}

/** Said by inStringifyOrder of a value JSON.stringify cannot be made to write canonically. */
const UNORDERABLE = Symbol('unorderable');

/**
 * The value with its objects' members in sorted order, for JSON.stringify to write as RFC 8785
 * does: its numbers and string escapes are the canonical ones already, and it writes members in
 * their own order. Objects already in order are not copied. UNORDERABLE when anything needs the
 * careful writer: a key that starts with a digit (an index-like key is kept first by the engine,
 * whatever its order), a value with no JSON form (which that writer names), or a toJSON added to
 * Object or Array.prototype. Most data takes this way: one native pass instead of a string per value.
 */
function inStringifyOrder(value: unknown): unknown {
  if ((Object.prototype as { toJSON?: unknown }).toJSON !== undefined || (Array.prototype as { toJSON?: unknown }).toJSON !== undefined) return UNORDERABLE;
  const order = (value: unknown): unknown => {
    switch (typeof value) {
      case 'string':
        return isWellFormedText(value) ? value : UNORDERABLE;
      case 'number':
        return Number.isFinite(value) ? value : UNORDERABLE;
      case 'boolean':
      case 'undefined':
        return value;
      case 'object':
        break;
      default:
        return UNORDERABLE;
    }
    if (value === null) return value;
    if (Array.isArray(value)) {
      let copy: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const ordered = order(item);
        if (ordered === UNORDERABLE) return UNORDERABLE;
        if (ordered !== item) (copy ??= value.slice())[i] = ordered;
      }
      return copy ?? value;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) return UNORDERABLE;
    const keys = Object.keys(value);
    let sorted = true;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const first = key.charCodeAt(0);
      if ((first >= 0x30 && first <= 0x39) || !isWellFormedText(key)) return UNORDERABLE;
      if (i > 0 && keys[i - 1]! > key) sorted = false;
    }
    if (!sorted) keys.sort();
    let copy: Record<string, unknown> | undefined;
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i]!;
      const member = (value as Record<string, unknown>)[key];
      const ordered = order(member);
      if (ordered === UNORDERABLE) return UNORDERABLE;
      if (!copy && (!sorted || ordered !== member)) {
        // Members before this one were unchanged and in order: copied as they are.
        copy = {};
        for (let j = 0; j < i; j++) copy[keys[j]!] = (value as Record<string, unknown>)[keys[j]!];
      }
      if (copy) copy[key] = ordered;
    }
    return copy ?? value;
  };
  return order(value);
}

/** RFC 8785 written value by value: for what JSON.stringify cannot be trusted with, and to name a fault's place. */
function writeCanonical(value: unknown): string {
  // The keys and indexes leading to the value being written: spelled out only when one has no JSON form.
  const place: (string | number)[] = [];
  const fail = (why: string): never => {
    throw new TypeError(`${placeText(place)}: ${why}`);
  };
  const string = (text: string): string => {
    if (!isWellFormedText(text)) fail('string holds a lone surrogate');
    return JSON.stringify(text);
  };
  const serialize = (value: unknown): string => {
    if (value === null) return 'null';
    switch (typeof value) {
      case 'boolean':
        return value ? 'true' : 'false';
      case 'number':
        if (!Number.isFinite(value)) fail(`${value} has no JSON form`);
        return JSON.stringify(value);
      case 'string':
        return string(value);
      case 'object':
        break;
      default:
        return fail(`a ${typeof value} has no JSON form`);
    }
    let text: string;
    if (Array.isArray(value)) {
      text = '[';
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        place.push(i);
        text += `${i > 0 ? ',' : ''}${item === undefined ? 'null' : serialize(item)}`;
        place.pop();
      }
      return `${text}]`;
    }
    const prototype = Object.getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) fail('only plain objects have a canonical JSON form');
    text = '{';
    let first = true;
    for (const key of Object.keys(value).sort()) {
      const member = (value as Record<string, unknown>)[key];
      if (member === undefined) continue;
      // A key's own fault is reported at its object.
      const name = string(key);
      place.push(key);
      text += `${first ? '' : ','}${name}:${serialize(member)}`;
      place.pop();
      first = false;
    }
    return `${text}}`;
  };
  return serialize(value);
}

/** `$`, then `.key` and `[index]` for each step to a value: where the fault is. */
function placeText(place: readonly (string | number)[]): string {
  return `$${place.map((step) => (typeof step === 'number' ? `[${step}]` : `.${step}`)).join('')}`;
}

/** A surrogate that is not half of a pair. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Replaces lone surrogates with U+FFFD so that any string can be canonicalized. */
export function toWellFormed(text: string): string {
  return isWellFormedText(text) ? text : text.replace(new RegExp(LONE_SURROGATE.source, 'g'), '\uFFFD');
}

/**
 * A JSON value with every string and key made well-formed, so that it always has a canonical form.
 * Plain objects and arrays that hold nothing to repair are returned as they are, not copied: the
 * audit and every output pass through here, and almost none hold a lone surrogate.
 */
export function toWellFormedJson(value: unknown): unknown {
  if (typeof value === 'string') return toWellFormed(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      const repaired = toWellFormedJson(item);
      if (repaired !== item) (copy ??= value.slice())[i] = repaired;
    }
    return copy ?? value;
  }
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  const prototype = Object.getPrototypeOf(value);
  // An object of another prototype is copied into a plain one; a plain one only from its first repair on.
  let copy: Record<string, unknown> | undefined = prototype === Object.prototype || prototype === null ? undefined : {};
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    const member = toWellFormedJson(record[key]);
    const wellFormedKey = toWellFormed(key);
    if (copy === undefined && (member !== record[key] || wellFormedKey !== key)) {
      copy = {};
      for (const earlier of keys.slice(0, i)) defineMember(copy, earlier, record[earlier]);
    }
    if (copy !== undefined) defineMember(copy, wellFormedKey, member);
  }
  return copy ?? value;
}

/** Sets a member as JSON.parse would: a key named __proto__ is a member like any other, never the prototype. */
function defineMember(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
}
