import { useEffect, useId, useRef, useState } from 'react';
import type { ApprovalRequest } from '../../../../shared/approval';
import type { ApprovalScope, RuleCheck } from '../../../../shared/permissions';
import { prettyJson } from '../../../format/json';
import { describe } from '../../../store/consoleSync';
import { useBridgeAction } from '../../common/useBridgeAction';
import { useConsoleSync } from '../../consoleContext';
import { saveLabel, scopeWords } from './scopeWords';
import { ProblemNote } from '../../common/ProblemNote';
import { ApproveButton } from '../ApproveButton';
import { countOf } from '../../../../shared/plural';

/** How long typing pauses before the rules are checked by the gate. */
const CHECK_DELAY_MS = 200;

/**
 * The rule a lasting choice would save, pre-filled with the narrowest rule that covers the call and
 * editable before anything is saved. The gate checks it as it is typed: a fault (it does not read,
 * names no tool, or would not allow this very call) disables saving and says why; a broad rule gets a
 * warning; the recent calls it would also have allowed are listed.
 */
export function RuleEditor({ request, scope, reason, onCancel }: { request: ApprovalRequest; scope: ApprovalScope; reason: string; onCancel: () => void }) {
  const sync = useConsoleSync();
  const fieldId = useId();
  const suggestions = request.suggestedRules ?? [];
  const [text, setText] = useState(suggestions[0]?.rule ?? '');
  const [check, setCheck] = useState<RuleCheck>();
  const [checkedText, setCheckedText] = useState<string>();
  const { inFlight, problem, run } = useBridgeAction();
  const latest = useRef(0);

  useEffect(() => {
    const asked = ++latest.current;
    const timer = setTimeout(() => {
      sync
        .checkRules({ approvalId: request.approvalId, rules: [text], scope })
        .then((result) => result, (error: unknown) => ({ problems: [describe(error)], warnings: [], matches: [] }))
        .then((result) => {
          if (asked !== latest.current) return;
          setCheck(result);
          setCheckedText(text);
        });
    }, CHECK_DELAY_MS);
    return () => clearTimeout(timer);
  }, [sync, request.approvalId, text, scope]);

  const checked = check !== undefined && checkedText === text;
  const refused = checked && check.problems.length > 0;

  function save(): Promise<void> {
    return run(() => sync.decideApproval(request.approvalId, 'approve', reason, { scope, rules: [text] }));
  }

  return (
    <section className="rule-editor" aria-label="Rule to save" data-testid="rule-editor" data-scope={scope.kind}>
      <p className="rule-lasts" data-testid="rule-lasts">
        Lasting: this rule will allow matching calls <strong>{scopeWords(scope)}</strong>.
      </p>
      {suggestions.length > 1 ? (
        <fieldset className="rule-suggestions">
          <legend>Start from</legend>
          {suggestions.map((suggestion) => (
            <label key={suggestion.rule}>
              <input type="radio" name={`${fieldId}-suggestion`} checked={text === suggestion.rule} onChange={() => setText(suggestion.rule)} />{' '}
              {suggestion.covers}
            </label>
          ))}
        </fieldset>
      ) : null}
      <label htmlFor={fieldId}>Rule (one per line)</label>
      <textarea
        id={fieldId}
        className="rule-text"
        value={text}
        rows={Math.max(1, text.split('\n').length)}
        spellCheck={false}
        aria-invalid={refused}
        onChange={(event) => setText(event.target.value)}
      />
      {refused ? (
        <ul className="rule-problems" role="alert" data-testid="rule-problems">
          {check.problems.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
      ) : null}
      {checked && check.warnings.length > 0 ? (
        <ul className="rule-warnings" data-testid="rule-warnings">
          {check.warnings.map((line) => (
            <li key={line}>Broad: {line}</li>
          ))}
        </ul>
      ) : null}
      {checked && !refused ? <RuleMatches matches={check.matches} /> : null}
      <ProblemNote problem={problem} testId="decision-problem" />
      <div className="decision-buttons">
        <ApproveButton holdKey={`rule:${request.approvalId}`} className="approve" disabled={!checked || refused || inFlight} onClick={() => void save()}>
          {saveLabel(scope)}
        </ApproveButton>
        <button type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </section>
  );
}

/** The recent calls a checked rule would also have allowed, counted in the summary and listed when opened. */
export function RuleMatches({ matches }: { matches: RuleCheck['matches'] }) {
  return (
    <details className="rule-matches" data-testid="rule-matches">
      <summary>{matches.length === 0 ? 'No recent call would also have matched.' : `${countOf(matches.length, 'recent call')} would also have matched`}</summary>
      <ul>
        {matches.map((match) => (
          <li key={match.callId}>
            <code>{match.tool}</code> {new Date(match.time).toLocaleTimeString()} <code>{prettyJson(match.arguments)}</code>
          </li>
        ))}
      </ul>
    </details>
  );
}
