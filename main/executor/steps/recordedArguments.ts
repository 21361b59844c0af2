import { toWellFormed } from '../../../shared/canonicalJson';
import { blake3Hex } from '../../../shared/hash';
import { MAX_ARGUMENT_DEPTH, nestsDeeperThan } from '../../../shared/jsonLimits';

/** Strings longer than this are kept in the audit and the Live view as a prefix, length and hash. */
export const MAX_RECORDED_STRING = 16 * 1024;
const PREFIX = 1024;

/**
 * Arguments as the audit log and the Live view keep them: every string well-formed, long strings
 * cut to a prefix with their length and BLAKE3 (the approval's binding hash still covers every
 * byte), and arguments nested too deep replaced by a note. Never recursive past the depth limit.
 */
export function recordedArguments(value: unknown): unknown {
  if (nestsDeeperThan(value, MAX_ARGUMENT_DEPTH)) return { 'toolgate/omitted': `arguments nested deeper than ${MAX_ARGUMENT_DEPTH} levels` };
  return summarize(value);
}

function summarize(value: unknown): unknown {
  if (typeof value === 'string') {
    const text = toWellFormed(value);
    if (text.length <= MAX_RECORDED_STRING) return text;
    return { 'toolgate/truncated': text.slice(0, PREFIX), chars: text.length, blake3: blake3Hex(text) };
  }
  if (Array.isArray(value)) return value.map(summarize);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [toWellFormed(key), summarize(member)]));
  }
  return value ?? null;
}

/** A tool name as records show it: well-formed and short. */
export function recordedToolName(name: string): string {
  const text = toWellFormed(name);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
