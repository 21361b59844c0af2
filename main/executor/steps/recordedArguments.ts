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

interface Budget {
  values: number;
  chars: number;
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
  return summarize(value, { values: MAX_RECORDED_VALUES, chars: MAX_RECORDED_CHARS });
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
  const text = toWellFormed(value);
  if (text.length <= Math.min(MAX_RECORDED_STRING, budget.chars)) {
    budget.chars -= text.length;
    return text;
  }
  const prefix = text.slice(0, budget.chars > PREFIX ? PREFIX : SHORT_PREFIX);
  budget.chars = Math.max(0, budget.chars - prefix.length);
  return { 'toolgate/truncated': prefix, chars: text.length, blake3: blake3Hex(text) };
}

/** A tool name as records show it: well-formed and short. */
export function recordedToolName(name: string): string {
  const text = toWellFormed(name);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
