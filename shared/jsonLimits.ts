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
 * Whether a text is well-formed Unicode: no lone surrogate (half of a UTF-16 pair), which has no
 * UTF-8 form and so can be neither hashed nor written. String#isWellFormed (ES2024, in Node 20+ and
 * Chromium 111+) scans a two-byte string about 4× faster than a regular expression, and a one-byte
 * string not at all; the ES2023 lib the project compiles against does not declare it yet.
 */
export function isWellFormedText(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed();
}
