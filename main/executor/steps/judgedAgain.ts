import type { ToolError } from '../../../shared/errors';
import { DECISION_STRICTNESS } from '../../policy/policyDecisions';
import type { PolicyDecision } from '../../policy/tierPolicy';

/**
 * What a call that names files was judged on, kept until its turn: the decision, how many
 * program-starting calls had ended when the judging began (CallScheduler.programsEnded), whether a
 * person approved it, and the way to judge it again, as it was judged the first time.
 */
export interface Judgment {
  decision: PolicyDecision;
  programsEnded: number;
  askedPerson: boolean;
  /** An edit a person made runs instead: judged again, it may be asked for by another rule than the original was. */
  revised?: boolean;
  judgeAgain: () => Promise<PolicyDecision>;
}

/**
 * Judges a call again when its turn comes, if what it names may have changed since it was judged: a
 * program started through the gate ended meanwhile (it may have put a link in place of a name), or a
 * person took their time to approve it. Returns why it may not run now, or undefined when the rules
 * still let it run as decided: an allowed call must still be allowed; an approved one must not be
 * denied now, nor asked for by another rule than the one the person answered.
 */
export async function judgedAgain(judgment: Judgment, programsEnded: number): Promise<ToolError | undefined> {
  if (!judgment.askedPerson && programsEnded === judgment.programsEnded) return undefined;
  const again = await judgment.judgeAgain();
  const before = judgment.decision;
  const stricter = DECISION_STRICTNESS[again.decision] > DECISION_STRICTNESS[before.decision];
  const otherQuestion = judgment.askedPerson && !judgment.revised && again.decision === 'ask' && again.rule !== before.rule;
  if (!stricter && !otherQuestion) return undefined;
  const why = judgment.askedPerson ? 'the files it names changed after it was approved' : 'a program that ran while it waited for its turn changed what the files it names reach';
  if (again.decision === 'deny') {
    return { code: 'EDENIED', message: `denied by policy: ${again.reason} (judged again when its turn came: ${why})`, details: { rule: again.rule } };
  }
  return {
    code: 'EDENIED',
    message: `not run: judged again when its turn came, it now needs a person's approval (${again.reason}), since ${why}; send the call again to have it asked`,
    details: { rule: again.rule },
  };
}
