/** How deep arguments may nest; deeper ones are refused before anything recursive touches them. */
export const MAX_ARGUMENT_DEPTH = 64;

/** Whether a JSON value nests deeper than `max` levels, found without recursion (so it cannot overflow the stack). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth >= max) return true;
    for (const member of Object.values(current)) {
      if (member !== null && typeof member === 'object') stack.push([member, depth + 1]);
    }
  }
  return false;
}

/** Whether a value is a JSON object (not null, not an array). */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
