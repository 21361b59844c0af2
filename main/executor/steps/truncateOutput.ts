/** What the agent receives of an output: the whole canonical text, or its cut head. */
export interface ShownOutput {
  /** The output data, or the cut text when it was too long. */
  data: unknown;
  /** Set when the text was cut. */
  truncated: boolean;
  /** Size of the whole canonical output, in bytes. */
  originalBytes: number;
}

/** The suffix seed 003 puts after a cut output. */
export function truncationSuffix(originalBytes: number): string {
  return `[output truncated — original size: ${originalBytes.toLocaleString('en-US')} bytes]`;
}

/** The longest prefix of `text` whose UTF-8 form fits in `maxBytes` (never splits a character). */
export function utf8Prefix(text: string, maxBytes: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= maxBytes) return text;
  let end = maxBytes;
  // Back up to the start of a character: continuation bytes are 10xxxxxx.
  while (end > 0 && (bytes[end]! & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
}

/**
 * Caps what goes back to the agent at the tool's maxOutputBytes (seed 003): a longer output
 * becomes its head as text, then the suffix with the original size. The suffix counts against the cap.
 */
export function capOutput(data: unknown, canonical: string, maxOutputBytes: number): ShownOutput {
  const originalBytes = Buffer.byteLength(canonical, 'utf8');
  if (originalBytes <= maxOutputBytes) return { data, truncated: false, originalBytes };
  const suffix = `\n${truncationSuffix(originalBytes)}`;
  const room = Math.max(0, maxOutputBytes - Buffer.byteLength(suffix, 'utf8'));
  return { data: `${utf8Prefix(canonical, room)}${suffix}`, truncated: true, originalBytes };
}
