import { StepFailure } from './stepFailure';

/**
 * Arguments arrive as a JSON value, or as raw JSON text (some agents send the text the model
 * wrote). Text is parsed here, so a malformed one is refused with where it broke.
 */
export function parseArguments(raw: unknown): unknown | StepFailure {
  if (typeof raw !== 'string') return raw ?? {};
  try {
    return JSON.parse(raw) as unknown;
  } catch (error) {
    return StepFailure.of(
      'parse',
      'EVALIDATION',
      `the arguments are not valid JSON (${(error as Error).message}); send a JSON object such as {"path": "notes.txt"}`,
    );
  }
}
