/** JSON on one line; values JSON cannot hold (undefined, cycles) get a readable stand-in. */
export function compactJson(value: unknown): string {
  return safeStringify(value, undefined);
}

/** JSON indented by two spaces, for a full view. */
export function prettyJson(value: unknown): string {
  return safeStringify(value, 2);
}

function safeStringify(value: unknown, indent: number | undefined): string {
  if (value === undefined) return '—';
  try {
    return JSON.stringify(value, null, indent) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The text cut to at most `max` characters (an ellipsis marks the cut), and whether it was cut. */
export function truncate(text: string, max: number): { text: string; truncated: boolean } {
  if (text.length <= max) return { text, truncated: false };
  return { text: `${text.slice(0, Math.max(0, max - 1))}…`, truncated: true };
}
