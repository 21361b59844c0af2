import { MAX_ARGUMENT_DEPTH } from '../../../shared/jsonLimits';
import { walkArguments, type Walked } from './recordedArguments';
import { StepFailure } from './stepFailure';

/** A call's arguments taken in: their recorded forms, and the arguments the pipeline goes on with or why they are refused. */
export type Admission = {
  /** The arguments as sent, as the invoked record and the Live view keep them (raw text stays text). */
  recorded: unknown;
  /** Arguments sent as raw JSON text, parsed, in their recorded form (shown from the validate step on). */
  recordedParsed?: unknown;
} & ({ args: unknown } | { refusal: StepFailure });

/**
 * The admission step: the arguments are walked once (recordedArguments.ts's walk), which at the
 * same time measures them against the gate's bounds (stopping at the first breach, so a flood is
 * never walked whole), notes nesting past MAX_ARGUMENT_DEPTH and the first lone surrogate, and
 * builds the bounded, well-formed form the audit, the Live view and the prompt keep. Arguments sent
 * as raw JSON text (some agents send the text the model wrote) are bounded by their bytes before
 * they are parsed, then the parsed value is walked the same way. A refusal is EVALIDATION at the
 * parse step, in this order: a bound (naming it and its limit), text that is not JSON (saying where
 * it broke), nesting too deep, a lone surrogate (naming the field). Admitted arguments are
 * bounded, shallow enough for any recursive step after, and every string and key is well-formed.
 */
export function admitArguments(raw: unknown): Admission {
  const sent = walkArguments(raw);
  if (sent.breach) return { recorded: sent.recorded, refusal: boundRefusal(sent) };
  if (typeof raw !== 'string') return judged(sent, raw ?? {}, { recorded: sent.recorded });
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    return {
      recorded: sent.recorded,
      refusal: StepFailure.of(
        'parse',
        'EVALIDATION',
        `the arguments are not valid JSON (${(error as Error).message}); send a JSON object such as {"path": "notes.txt"}`,
      ),
    };
  }
  const walked = walkArguments(parsed);
  const recorded = { recorded: sent.recorded, recordedParsed: walked.recorded };
  if (walked.breach) return { ...recorded, refusal: boundRefusal(walked) };
  return judged(walked, parsed, recorded);
}

function boundRefusal({ breach }: Walked): StepFailure {
  return StepFailure.of('parse', 'EVALIDATION', breach!.message, { bound: breach!.bound, limit: breach!.limit });
}

/** Admits arguments within the bounds, or refuses them for their depth or a lone surrogate. */
function judged(walked: Walked, args: unknown, recorded: Pick<Admission, 'recorded' | 'recordedParsed'>): Admission {
  if (walked.tooDeep) {
    return { ...recorded, refusal: StepFailure.of('parse', 'EVALIDATION', `the arguments nest deeper than ${MAX_ARGUMENT_DEPTH} levels; send flatter arguments`) };
  }
  const field = walked.illFormedAt;
  if (field !== undefined) {
    return {
      ...recorded,
      refusal: StepFailure.of('parse', 'EVALIDATION', `${field} holds a lone surrogate (half of a UTF-16 pair), which is not text; send well-formed Unicode`, { field }),
    };
  }
  return { ...recorded, args };
}
