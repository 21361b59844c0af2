import { canonicalize, toWellFormed } from '../../../shared/canonicalJson';
import { blake3Hex } from '../../../shared/hash';
import type { RegisteredTool } from '../../registry/registry';
import { describeIssues } from './validateInput';
import { StepFailure } from './stepFailure';

/** Output that passed its schema, in canonical form, with its hash. */
export interface NormalizedOutput {
  data: unknown;
  canonical: string;
  responseHash: string;
}

/** Makes every string well-formed Unicode, so any output has a canonical form. */
function wellFormed(value: unknown): unknown {
  if (typeof value === 'string') return toWellFormed(value);
  if (Array.isArray(value)) return value.map(wellFormed);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, member]) => [toWellFormed(key), wellFormed(member)]));
  }
  return value;
}

/** Checks the tool's output against its declared schema, then canonicalizes (RFC 8785) and hashes it (BLAKE3). */
export function normalizeOutput(entry: RegisteredTool, raw: unknown): NormalizedOutput | StepFailure {
  const parsed = entry.tool.output.safeParse(raw);
  if (!parsed.success) {
    const { message } = describeIssues(parsed.error.issues);
    return StepFailure.of('output', 'ERUNTIME', `${entry.tool.manifest.name} returned output that breaks its own schema: ${message}`);
  }
  let canonical: string;
  try {
    canonical = canonicalize(wellFormed(parsed.data));
  } catch (error) {
    return StepFailure.of('normalize', 'ERUNTIME', `${entry.tool.manifest.name} returned output with no JSON form: ${(error as Error).message}`);
  }
  return { data: JSON.parse(canonical) as unknown, canonical, responseHash: blake3Hex(canonical) };
}
