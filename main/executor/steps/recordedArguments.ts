import { toWellFormed } from '../../../shared/canonicalJson';
import { MAX_ARGUMENT_DEPTH, isWellFormedText } from '../../../shared/jsonLimits';
import { fastBlake3Hex } from '../../audit/fastBlake3';
import { DEFAULT_ARGUMENT_BOUNDS, breachOf, type ArgumentBounds, type BoundBreach } from './argumentBounds';

/** Strings longer than this are kept in the audit and the Live view as a prefix, length and hash. */
export const MAX_RECORDED_STRING = 16 * 1024;
/** Elements of one array, or keys of one object, kept; past it, a count of the rest. */
export const MAX_RECORDED_MEMBERS = 200;
/** Values kept in all; past it, a count of what was left out. */
export const MAX_RECORDED_VALUES = 5_000;
/** Characters of string kept whole in all; past it, strings keep only a short prefix, their length and hash. */
export const MAX_RECORDED_CHARS = 256 * 1024;
/** Text of a tool's output the Live view is sent, in all; past it, strings are shown as a prefix and length (the agent gets them whole). */
export const MAX_SHOWN_OUTPUT_STRING = 64 * 1024;
const PREFIX = 1024;
const SHORT_PREFIX = 64;
const OMITTED = 'toolgate/omitted';
/** The path a value at the top of the arguments is named by. */
const TOP = '(arguments)';

/** What one walk over a JSON value found, and the bounded form it built. */
export interface Walked {
  /** The first bound the value breaks (the walk stopped there), when it was measured against bounds. */
  breach?: BoundBreach;
  /** Whether it nests deeper than MAX_ARGUMENT_DEPTH. */
  tooDeep: boolean;
  /** The path (`items.2.name`, made well-formed) of the first string or key, in document order, holding a lone surrogate. */
  illFormedAt?: string;
  /** The bounded, well-formed form (a note in place of the whole when it breaks a bound or nests too deep). */
  recorded: unknown;
}

/** How a walk bounds what it keeps, and whether it measures the value against the gate's bounds. */
interface WalkOptions {
  /** Measure every value against these and stop at the first breach (arguments); absent for outputs, already taken whole. */
  bounds?: ArgumentBounds;
  /** Longest string kept whole. */
  maxString: number;
  /** Characters of string kept whole in all. */
  chars: number;
  /** Whether a cut string keeps its BLAKE3 (arguments: yes; outputs have their response hash already). */
  hashCut: boolean;
  /** What the note of a value nested too deep calls it. */
  what: 'arguments' | 'output';
  /** False to only measure (the bounds, depth and well-formedness): nothing is kept, copied or hashed. */
  record?: false;
}

/** One value waiting on the walk's stack, with where its kept form goes. */
interface Pending {
  value: unknown;
  depth: number;
  /** The array or object holding it (undefined at the top), and its key or index there. */
  parent: Container | undefined;
  key: string | number;
  /** Its place among its parent's members. */
  index: number;
}

/** An array or object met on the walk, and its kept form while that is being filled. */
interface Container {
  parent: Container | undefined;
  key: string | number;
  /** Members in all, for the note counting what was left out. */
  size: number;
  /** The kept form; undefined when the container itself was left out (its members are then only measured). */
  kept: unknown[] | Record<string, unknown> | undefined;
  /** Set once a member was left out: the note is written and later members are only measured. */
  cut: boolean;
}

/**
 * The one walk over a JSON value that the gate's admission makes: in document order, without
 * recursion (so no nesting overflows the stack), it measures the bounds (stopping at the first
 * breach, so a flood costs no more than the bound itself), notes nesting past MAX_ARGUMENT_DEPTH
 * and the first lone surrogate, and builds the bounded form the audit, the Live view and the prompt
 * keep: every string and key well-formed, long strings cut to a prefix with their length (and their
 * BLAKE3 when `hashCut`), arrays and objects cut to their first MAX_RECORDED_MEMBERS members with a
 * count of the rest, the whole held to MAX_RECORDED_VALUES values. A key such as `__proto__` stays
 * an ordinary key of the kept form. Without `bounds`, members past what is kept are not visited.
 */
function walkJson(value: unknown, options: WalkOptions): Walked {
  const { bounds } = options;
  let values = MAX_RECORDED_VALUES;
  let chars = options.chars;
  let bytes = 0;
  let elements = 0;
  let nodes = 0;
  let tooDeep = false;
  let illFormedAt: string | undefined;
  const top: { recorded: unknown } = { recorded: null };
  // Cut strings are hashed only once the walk is through: arguments refused for a later breach cost no hash.
  const unhashed: Array<{ cut: Record<string, unknown>; text: string; wellFormed: boolean | undefined }> = [];
  const stack: Pending[] = [{ value, depth: 0, parent: undefined, key: TOP, index: 0 }];
  const walked = (breach?: BoundBreach): Walked => {
    if (breach) return { breach, tooDeep, recorded: { [OMITTED]: `arguments over the gate's ${breach.bound} bound (${breach.limit})` } };
    const found = illFormedAt !== undefined ? { illFormedAt } : {};
    if (tooDeep) return { tooDeep, ...found, recorded: { [OMITTED]: `${options.what} nested deeper than ${MAX_ARGUMENT_DEPTH} levels` } };
    for (const { cut, text, wellFormed } of unhashed) cut.blake3 = fastBlake3Hex(wellFormed ? text : toWellFormed(text));
    return { tooDeep, ...found, recorded: top.recorded };
  };
  while (stack.length > 0) {
    const { value: current, depth, parent, key, index } = stack.pop()!;
    if (bounds && ++nodes > bounds.maxNodes) return walked(breachOf('maxNodes', bounds.maxNodes, `hold more than ${bounds.maxNodes} values in all`));
    const kept = options.record !== false && (parent === undefined || keepsMember(parent, index));
    if (kept) values--;
    // Keys are checked as their members are reached, so the first ill-formed string is the first in document order.
    if (bounds && illFormedAt === undefined && typeof key === 'string' && parent !== undefined && !isWellFormedText(key)) illFormedAt = pathOf(parent, key);
    if (typeof current === 'string') {
      // Only arguments are refused for a lone surrogate; an output's strings are made well-formed where kept.
      const wellFormed = bounds ? isWellFormedText(current) : undefined;
      if (bounds) bytes += Buffer.byteLength(current, 'utf8') + 2;
      if (wellFormed === false && illFormedAt === undefined) illFormedAt = pathOf(parent, key);
      if (kept) place(parent, key, keptString(current, wellFormed));
    } else if (current !== null && typeof current === 'object') {
      if (depth >= MAX_ARGUMENT_DEPTH) tooDeep = true;
      const members = Array.isArray(current) ? undefined : keysOf(current, bounds?.maxKeysPerObject);
      if (members === null) return walked(breachOf('maxKeysPerObject', bounds!.maxKeysPerObject, `hold an object with more than ${bounds!.maxKeysPerObject} keys`));
      const size = members ? members.length : (current as unknown[]).length;
      if (bounds && !members) {
        bytes += SCALAR_BYTES;
        if ((elements += size) > bounds.maxElements) {
          return walked(breachOf('maxElements', bounds.maxElements, `hold more than ${bounds.maxElements} array elements in all`));
        }
      }
      const container: Container = { parent, key, size, kept: kept ? (members ? {} : []) : undefined, cut: false };
      if (kept) place(parent, key, container.kept);
      // Arguments' members are all visited, to be measured; an output's only as far as they can be kept.
      if (!bounds && !kept) continue;
      const visited = bounds ? size : Math.min(size, MAX_RECORDED_MEMBERS + 1);
      for (let at = visited - 1; at >= 0; at--) {
        const memberKey = members ? members[at]! : at;
        if (bounds && members) bytes += Buffer.byteLength(memberKey as string, 'utf8') + SCALAR_BYTES;
        stack.push({ value: (current as Record<string | number, unknown>)[memberKey], depth: depth + 1, parent: container, key: memberKey, index: at });
      }
    } else {
      if (bounds) bytes += SCALAR_BYTES;
      if (kept) place(parent, key, current ?? null);
    }
    if (bounds && bytes > bounds.maxBytes) return walked(breachOf('maxBytes', bounds.maxBytes, `are larger than ${bounds.maxBytes} bytes`));
  }
  return walked();

  /** Puts a kept member's form in its parent's kept form (or at the top). */
  function place(parent: Container | undefined, key: string | number, form: unknown): void {
    if (parent === undefined) top.recorded = form;
    else if (Array.isArray(parent.kept)) parent.kept.push(form);
    else {
      // Only members of a kept object are kept.
      const into = parent.kept as Record<string, unknown>;
      const name = toWellFormed(key as string);
      // defineProperty, not assignment, for "__proto__": it stays an ordinary key instead of setting the prototype.
      if (name === '__proto__') Object.defineProperty(into, name, { value: form, enumerable: true, writable: true, configurable: true });
      else into[name] = form;
    }
  }

  /** Whether the member at `index` of `parent` is kept; the first one left out writes the note counting the rest. */
  function keepsMember(parent: Container, index: number): boolean {
    if (parent.kept === undefined || parent.cut) return false;
    if (index < MAX_RECORDED_MEMBERS && values > 0) return true;
    parent.cut = true;
    const rest = parent.size - index;
    if (Array.isArray(parent.kept)) parent.kept.push({ [OMITTED]: `${rest} more elements (${parent.size} in all)` });
    else parent.kept[OMITTED] = `${rest} more keys (${parent.size} in all)`;
    return false;
  }

  /** A string as it is kept: whole while the budget lasts, else a prefix with its length (and hash). */
  function keptString(text: string, wellFormed: boolean | undefined): unknown {
    if (text.length <= Math.min(options.maxString, chars)) {
      chars -= text.length;
      return wellFormed ? text : toWellFormed(text);
    }
    // Only the kept prefix is made well-formed: a 16 MiB output is not copied to show its first KiB.
    const prefix = toWellFormed(text.slice(0, chars > PREFIX ? PREFIX : SHORT_PREFIX));
    chars = Math.max(0, chars - prefix.length);
    const cut: Record<string, unknown> = { 'toolgate/truncated': prefix, chars: text.length };
    if (options.hashCut) unhashed.push({ cut, text, wellFormed });
    return cut;
  }
}

/** Bytes counted for a number, boolean or null, and for the punctuation around a value. */
const SCALAR_BYTES = 8;

/** An object's own keys, in order; null as soon as there are more than `max` (a flood is not listed whole). */
function keysOf(object: object, max = Infinity): string[] | null {
  const keys: string[] = [];
  for (const key in object) {
    if (!Object.hasOwn(object, key)) continue;
    if (keys.length >= max) return null;
    keys.push(key);
  }
  return keys;
}

/**
 * The path of a member as refusals name it: `items.2.name`, or `(arguments)` for the whole. It is
 * made well-formed itself: a refusal naming a key that holds a lone surrogate must still be hashed.
 */
function pathOf(parent: Container | undefined, key: string | number): string {
  const names: Array<string | number> = [];
  for (let at: Container | undefined = parent, name = key; at !== undefined; name = at.key, at = at.parent) names.push(name);
  return names.length === 0 ? TOP : toWellFormed(names.reverse().join('.'));
}

/** The options of a walk over a call's arguments. */
const ARGUMENTS: WalkOptions = { bounds: DEFAULT_ARGUMENT_BOUNDS, maxString: MAX_RECORDED_STRING, chars: MAX_RECORDED_CHARS, hashCut: true, what: 'arguments' };

/** Walks a call's arguments against the gate's bounds (see walkJson). */
export function walkArguments(value: unknown): Walked {
  return walkJson(value, ARGUMENTS);
}

/**
 * Arguments as the audit log, the Live view and the prompt keep them (see walkJson); arguments
 * over the gate's bounds or nested too deep are replaced by a note. The approval's binding hash and
 * the started record's input hash still cover every byte.
 */
export function recordedArguments(value: unknown): unknown {
  return walkArguments(value).recorded;
}

/** The first bound a JSON value breaks, or undefined when it fits (the walk stops at the breach; nothing is recorded). */
export function argumentBoundBreach(value: unknown): BoundBreach | undefined {
  return walkJson(value, { ...ARGUMENTS, record: false }).breach;
}

/**
 * A tool's output as the Live view is sent it: the same bounded form as arguments, without hashing
 * what is cut (the response hash covers the whole output, which the agent and the audit receive).
 */
export function shownOutput(value: unknown): unknown {
  return walkJson(value, { maxString: MAX_SHOWN_OUTPUT_STRING, chars: MAX_SHOWN_OUTPUT_STRING, hashCut: false, what: 'output' }).recorded;
}

/** A tool name as records show it: well-formed and short. */
export function recordedToolName(name: string): string {
  const text = toWellFormed(name);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
