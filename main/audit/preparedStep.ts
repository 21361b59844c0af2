import { canonicalize, toWellFormedJson } from '../../shared/canonicalJson';

/**
 * One step of a call with its canonical text made ahead of the call's record (AuditStore.prepareStep),
 * while its tool runs: the record at the call's end then canonicalizes only the steps that came
 * after. `text` is the step's canonical JSON as the log stores it (redacted, well-formed) and
 * `value` what that text reads back as, the step the record holds.
 */
export class PreparedStep {
  constructor(
    readonly text: string,
    readonly value: unknown,
  ) {}
}

/** How the log redacts a payload before it is stored: a new value, or the payload itself untouched when it has nothing to hide. */
export type Redact = ((payload: unknown) => unknown) | undefined;

/** A payload's canonical text as the log stores it (redacted, well-formed), and what that text reads back as. */
export function storedPayload(payload: unknown, redact: Redact): { text: string; value: unknown } {
  const text = canonicalize(toWellFormedJson(redact ? redact(payload) : payload));
  return { text, value: JSON.parse(text) as unknown };
}

/** A payload of no steps, and its canonical text when redaction leaves its key alone. */
const EMPTY_STEPS = Object.freeze({ steps: Object.freeze([]) });
const EMPTY_STEPS_TEXT = '{"steps":[]}';

/**
 * A `{ steps }` payload holding prepared steps, joined from their texts: the same text and value
 * storedPayload() gives the payload with each step as it was (a step's canonical text does not
 * depend on what is around it). Undefined for any other payload, and for one whose `steps` key
 * itself would be redacted (then it is stored whole, a prepared step read as its value).
 */
export function storedStepsPayload(payload: unknown, redact: Redact): { text: string; value: unknown } | undefined {
  if (typeof payload !== 'object' || payload === null || !('steps' in payload)) return undefined;
  const { steps } = payload as { steps: unknown };
  if (!Array.isArray(steps) || Object.keys(payload).length !== 1 || !holdsPrepared(steps)) return undefined;
  if (!keepsStepsKey(redact)) {
    return storedPayload({ steps: steps.map((step: unknown) => (step instanceof PreparedStep ? step.value : step)) }, redact);
  }
  // Loops, not some(), map() and join(): each call's steps come in arrays of more than one kind,
  // and optimized code that had seen one kind was thrown away at the next, call after call.
  let text = '{"steps":[';
  const values: unknown[] = [];
  for (const step of steps as unknown[]) {
    const part = step instanceof PreparedStep ? step : storedPayload(step, redact);
    text += values.length === 0 ? part.text : `,${part.text}`;
    values.push(part.value);
  }
  return { text: `${text}]}`, value: { steps: values } };
}

function holdsPrepared(steps: readonly unknown[]): boolean {
  for (const step of steps) if (step instanceof PreparedStep) return true;
  return false;
}

/**
 * Whether redaction leaves a payload's `steps` key as it is. A redactor that hands the payload
 * back itself changed nothing (the gate's does so whenever it has no secrets); any other answer is
 * judged by the text it stores.
 */
function keepsStepsKey(redact: Redact): boolean {
  if (!redact) return true;
  const redacted = redact(EMPTY_STEPS);
  return redacted === EMPTY_STEPS || canonicalize(toWellFormedJson(redacted)) === EMPTY_STEPS_TEXT;
}
