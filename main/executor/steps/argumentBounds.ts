/** How large a call's arguments may be; measured by the admission walk (recordedArguments.ts) as it records them. */
export interface ArgumentBounds {
  /** About the size of the arguments as JSON text: UTF-8 bytes of every string and key, plus a little per value. */
  maxBytes: number;
  /** Elements of all arrays together. */
  maxElements: number;
  /** Keys of any one object. */
  maxKeysPerObject: number;
  /** Values of every kind together (objects, arrays, strings, numbers, booleans, nulls). */
  maxNodes: number;
}

/**
 * The default bounds: 4 MiB sits under the HTTP body limit, and no tool's input needs more than
 * 100,000 elements or 10,000 keys in one object; past these, a call only costs the gate and the
 * person, so it is refused before it reaches the audit or the console.
 */
export const DEFAULT_ARGUMENT_BOUNDS: ArgumentBounds = {
  maxBytes: 4 * 1024 * 1024,
  maxElements: 100_000,
  maxKeysPerObject: 10_000,
  maxNodes: 200_000,
};

/** Which bound a call's arguments broke, with the limit and a message saying how to fix it. */
export interface BoundBreach {
  bound: keyof ArgumentBounds;
  limit: number;
  message: string;
}

/** The breach of one bound, with a message saying what was too large and how to fix it. */
export function breachOf(bound: keyof ArgumentBounds, limit: number, what: string): BoundBreach {
  return { bound, limit, message: `the arguments ${what} (the gate's ${bound} bound is ${limit}); send less, or split the work over several calls` };
}
