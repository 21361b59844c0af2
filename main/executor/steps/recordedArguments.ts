import { toWellFormed } from '../../../shared/canonicalJson';
import { blake3Hex } from '../../../shared/hash';
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan } from '../../../shared/jsonLimits';
import { argumentBoundBreach } from './argumentBounds';

/** Strings longer than this are kept in the audit and the Live view as a prefix, length and hash. */
export const MAX_RECORDED_STRING = 16 * 1024;
/** Elements of one array, or keys of one object, kept; past it, a count of the rest. */
export const MAX_RECORDED_MEMBERS = 200;
/** Values kept in all; past it, a count of what was left out. */
export const MAX_RECORDED_VALUES = 5_000;
/** Characters of string kept whole in all; past it, strings keep only a short prefix, their length and hash. */
export const MAX_RECORDED_CHARS = 256 * 1024;
const PREFIX = 1024;
const SHORT_PREFIX = 64;
const OMITTED = 'toolgate/omitted';

/** Text of a tool's output the Live view is sent, in all; past it, strings are shown as a prefix and length (the agent gets them whole). */
export const MAX_SHOWN_OUTPUT_STRING = 64 * 1024;

interface Budget {
  values: number;
  chars: number;
  /** Longest string kept whole. */
  readonly maxString: number;
  /** Whether a cut string keeps its BLAKE3 (arguments: yes; outputs have their response hash already). */
  readonly hashCut: boolean;
}

/**
 * Arguments as the audit log, the Live view and the prompt keep them: every string well-formed,
 * long strings cut to a prefix with their length and BLAKE3, large arrays and objects cut to their
 * first members with a count of the rest, the whole held to a budget (the approval's binding hash
 * and the started record's input hash still cover every byte). Arguments over the gate's bounds or
 * nested too deep are replaced by a note. Never recursive past the depth limit.
 */
export function recordedArguments(value: unknown): unknown {
  // The bounds first: their walk stops early, so a flood is never walked whole.
  const broken = argumentBoundBreach(value);
  if (broken) return { [OMITTED]: `arguments over the gate's ${broken.bound} bound (${broken.limit})` };
  if (nestsDeeperThan(value, MAX_ARGUMENT_DEPTH)) return { [OMITTED]: `arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  return summarize(value, { values: MAX_RECORDED_VALUES, chars: MAX_RECORDED_CHARS, maxString: MAX_RECORDED_STRING, hashCut: true });
}

/**
 * A tool's output as the Live view is sent it: the same bounded form as arguments, without hashing
 * what is cut (the response hash covers the whole output, which the agent and the audit receive).
 */
export function shownOutput(value: unknown): unknown {
  if (nestsDeeperThan(value, MAX_ARGUMENT_DEPTH)) return { [OMITTED]: `output nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  return summarize(value, { values: MAX_RECORDED_VALUES, chars: MAX_SHOWN_OUTPUT_STRING, maxString: MAX_SHOWN_OUTPUT_STRING, hashCut: false });
}

function summarize(value: unknown, budget: Budget): unknown {
  budget.values--;
  if (typeof value === 'string') return summarizeString(value, budget);
  if (Array.isArray(value)) {
    const kept: unknown[] = [];
    for (const [index, member] of value.entries()) {
      if (index >= MAX_RECORDED_MEMBERS || budget.values <= 0) {
        kept.push({ [OMITTED]: `${value.length - index} more elements (${value.length} in all)` });
        break;
      }
      kept.push(summarize(member, budget));
    }
    return kept;
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    const kept: Record<string, unknown> = {};
    for (const [index, [key, member]] of entries.entries()) {
      if (index >= MAX_RECORDED_MEMBERS || budget.values <= 0) {
        kept[OMITTED] = `${entries.length - index} more keys (${entries.length} in all)`;
        break;
      }
      kept[toWellFormed(key)] = summarize(member, budget);
    }
    return kept;
  }
  return value ?? null;
}

function summarizeString(value: string, budget: Budget): unknown {
  if (value.length <= Math.min(budget.maxString, budget.chars)) {
    budget.chars -= value.length;
    return toWellFormed(value);
  }
  // Only the kept prefix is made well-formed: a 16 MiB output is not copied to show its first KiB.
  const prefix = toWellFormed(value.slice(0, budget.chars > PREFIX ? PREFIX : SHORT_PREFIX));
  budget.chars = Math.max(0, budget.chars - prefix.length);
  return { 'toolgate/truncated': prefix, chars: value.length, ...(budget.hashCut ? { blake3: blake3Hex(toWellFormed(value)) } : {}) };
}

/** A tool name as records show it: well-formed and short. */
export function recordedToolName(name: string): string {
  const text = toWellFormed(name);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
