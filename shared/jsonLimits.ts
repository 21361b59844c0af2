import { LONE_SURROGATE } from './canonicalJson';

/** How deep arguments may nest; deeper ones are refused before anything recursive touches them. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Whether a JSON value nests deeper than `max` levels, found without recursion (so it cannot overflow the stack). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    // Members are read in place: copying a million-element array just to walk it costs the gate a pause.
    if (Array.isArray(current)) {
      for (let index = 0; index < current.length; index++) {
        const member: unknown = current[index];
        if (member !== null && typeof member === 'object') stack.push([member, depth + 1]);
      }
      continue;
    }
    for (const key in current) {
      const member = (current as Record<string, unknown>)[key];
      if (member !== null && typeof member === 'object') stack.push([member, depth + 1]);
    }
  }
  return false;
}

/** Whether a value is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The path of the first string (value or key) that is not well-formed Unicode (a lone surrogate),
 * found without recursion; undefined when every string is well-formed. Such text has no UTF-8 form,
 * so it can be neither hashed nor written: it is refused as invalid input.
 */
export function firstIllFormedString(value: unknown): string | undefined {
  const stack: Array<[unknown, string]> = [[value, '(arguments)']];
  while (stack.length > 0) {
    const [current, path] = stack.pop()!;
    if (typeof current === 'string') {
      if (LONE_SURROGATE.test(current)) return path;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    for (const [key, member] of Object.entries(current)) {
      const at = path === '(arguments)' ? key : `${path}.${key}`;
      if (LONE_SURROGATE.test(key)) return at;
      stack.push([member, at]);
    }
  }
  return undefined;
}
