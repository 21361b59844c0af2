import { StepFailure } from './stepFailure';

/** How large a call's arguments may be; checked before anything else walks, copies or records them. */
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

/** Bytes counted for a number, boolean or null, and for the punctuation around a value. */
const SCALAR_BYTES = 8;

/** Which bound a call's arguments broke, with the limit and a message saying how to fix it. */
export interface BoundBreach {
  bound: keyof ArgumentBounds;
  limit: number;
  message: string;
}

function breach(bound: keyof ArgumentBounds, limit: number, what: string): BoundBreach {
  return { bound, limit, message: `the arguments ${what} (the gate's ${bound} bound is ${limit}); send less, or split the work over several calls` };
}

/** Verdicts on argument objects already measured against the default bounds: one call's arguments are checked at several steps. */
const measured = new WeakMap<object, BoundBreach | null>();

/**
 * The first bound the arguments break, or undefined when they fit. Arguments sent as raw JSON text
 * are measured by their bytes (before any parse). Walks without recursion and stops at the first
 * breach, so a million-element array costs no more than the bound itself.
 */
export function argumentBoundBreach(value: unknown, bounds: ArgumentBounds = DEFAULT_ARGUMENT_BOUNDS): BoundBreach | undefined {
  if (bounds !== DEFAULT_ARGUMENT_BOUNDS || value === null || typeof value !== 'object') return measure(value, bounds);
  const known = measured.get(value);
  if (known !== undefined) return known ?? undefined;
  const verdict = measure(value, bounds);
  measured.set(value, verdict ?? null);
  return verdict;
}

function measure(value: unknown, bounds: ArgumentBounds): BoundBreach | undefined {
  let bytes = 0;
  let elements = 0;
  let nodes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (++nodes > bounds.maxNodes) return breach('maxNodes', bounds.maxNodes, `hold more than ${bounds.maxNodes} values in all`);
    if (typeof current === 'string') {
      bytes += Buffer.byteLength(current, 'utf8') + 2;
    } else if (Array.isArray(current)) {
      elements += current.length;
      if (elements > bounds.maxElements) {
        return breach('maxElements', bounds.maxElements, `hold more than ${bounds.maxElements} array elements in all`);
      }
      bytes += SCALAR_BYTES;
      for (let index = 0; index < current.length; index++) stack.push(current[index]);
    } else if (current !== null && typeof current === 'object') {
      let keys = 0;
      for (const key in current) {
        if (++keys > bounds.maxKeysPerObject) {
          return breach('maxKeysPerObject', bounds.maxKeysPerObject, `hold an object with more than ${bounds.maxKeysPerObject} keys`);
        }
        bytes += Buffer.byteLength(key, 'utf8') + SCALAR_BYTES;
        stack.push((current as Record<string, unknown>)[key]);
      }
    } else {
      bytes += SCALAR_BYTES;
    }
    if (bytes > bounds.maxBytes) return breach('maxBytes', bounds.maxBytes, `are larger than ${bounds.maxBytes} bytes`);
  }
  return undefined;
}

/** The bounds step: an EVALIDATION failure naming the bound and its limit, or undefined when the arguments fit. */
export function checkArgumentBounds(value: unknown, bounds?: ArgumentBounds): StepFailure | undefined {
  const broken = argumentBoundBreach(value, bounds);
  if (!broken) return undefined;
  return StepFailure.of('parse', 'EVALIDATION', broken.message, { bound: broken.bound, limit: broken.limit });
}
