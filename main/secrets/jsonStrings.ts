/**
 * Walks every string of a JSON-ish value (objects, arrays, strings; anything else is copied as is)
 * with an explicit stack, so a deeply nested tool output cannot overflow the call stack.
 */

/** Calls `visit` on every string value (not key) inside `value`. */
export function forEachString(value: unknown, visit: (text: string) => void): void {
  const stack: unknown[] = [value];
  const seen = new WeakSet<object>();
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current === 'string') visit(current);
    else if (typeof current === 'object' && current !== null && !seen.has(current)) {
      seen.add(current);
      stack.push(...Object.values(current));
    }
  }
}

/**
 * A deep copy of `value` with every string value passed through `mapValue` and, when given, every
 * object key through `mapKey`. The input is never changed; shared or cyclic members are copied once.
 */
export function mapStrings(value: unknown, mapValue: (text: string) => string, mapKey?: (key: string) => string): unknown {
  const copies = new WeakMap<object, object>();
  const pending: Array<[source: object, target: object]> = [];
  const copy = (member: unknown): unknown => {
    if (typeof member === 'string') return mapValue(member);
    if (typeof member !== 'object' || member === null) return member;
    const known = copies.get(member);
    if (known) return known;
    const target: object = Array.isArray(member) ? new Array<unknown>(member.length) : {};
    copies.set(member, target);
    pending.push([member, target]);
    return target;
  };
  const root = copy(value);
  while (pending.length > 0) {
    const [source, target] = pending.pop()!;
    if (Array.isArray(source)) {
      source.forEach((member: unknown, index) => ((target as unknown[])[index] = copy(member)));
      continue;
    }
    for (const [key, member] of Object.entries(source)) {
      // defineProperty, not assignment: a key named "__proto__" stays an ordinary key.
      Object.defineProperty(target, mapKey ? mapKey(key) : key, { value: copy(member), enumerable: true, writable: true, configurable: true });
    }
  }
  return root;
}
