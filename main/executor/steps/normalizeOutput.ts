import { canonicalize, toWellFormedJson } from '../../../shared/canonicalJson';
import { fastBlake3Hex } from '../../audit/fastBlake3';
import type { RegisteredTool } from '../../registry/registry';
import { describeIssues } from './validateInput';
import { StepFailure } from './stepFailure';

/** Output that passed its schema, in canonical form, with its hash. */
export interface NormalizedOutput {
  data: unknown;
  canonical: string;
  responseHash: string;
}

/**
 * Checks the tool's output against its declared schema, then canonicalizes (RFC 8785) and hashes it
 * (BLAKE3, in WebAssembly once loaded: the pure-JS hash of a 1 MiB output alone costs about 15 ms).
 */
export function normalizeOutput(entry: RegisteredTool, raw: unknown): NormalizedOutput | StepFailure {
  const parsed = entry.tool.output.safeParse(raw);
  if (!parsed.success) {
    const { message } = describeIssues(parsed.error.issues);
    return StepFailure.of('output', 'ERUNTIME', `${entry.tool.manifest.name} returned output that breaks its own schema: ${message}`);
  }
  let canonical: string;
  try {
    canonical = canonicalize(toWellFormedJson(parsed.data));
  } catch (error) {
    return StepFailure.of('normalize', 'ERUNTIME', `${entry.tool.manifest.name} returned output with no JSON form: ${(error as Error).message}`);
  }
  return { data: JSON.parse(canonical) as unknown, canonical, responseHash: fastBlake3Hex(canonical) };
}
