import { useState } from 'react';
import type { PlannedChange, UndoReport } from '../../../shared/effects';
import { countOf } from '../../../shared/plural';
import { ProblemNote } from './ProblemNote';
import { VisibleText } from './VisibleText';
import { useBridgeAction } from './useBridgeAction';
import { useConsoleSync } from '../consoleContext';
import '../../styles/replay.css';
import '../../styles/undo.css';

/** What the person chose for a file changed since the call. */
type Choice = 'keep-current' | 'restore-anyway';

/** Headlines of the outcomes. */
const OUTCOME_TITLE: Record<UndoReport['outcome'], string> = {
  planned: 'What undoing will do',
  undone: 'Undone',
  conflict: 'Changed since the call',
  nothing: 'Nothing to undo',
  'not-undoable': 'Not undoable',
};

/** A state's short name: its hash's head, a symlink's target, a folder, or absent. */
function shortState(state: PlannedChange['current']): string {
  if (state === null) return 'absent';
  if (state.type === 'file') return state.hash ? state.hash.slice(0, 12) : 'file';
  return state.type === 'symlink' ? `→ ${state.target ?? ''}` : 'folder';
}

/** One file of a plan: what is done to it, its diff, and for a conflict the three versions and the choice. */
function PlannedFile({ change, choice, onChoose }: { change: PlannedChange; choice: Choice | undefined; onChoose: (choice: Choice) => void }) {
  return (
    <li className={`undo-file${change.conflict ? ' undo-conflict' : ''}`} data-testid="undo-file">
      <p>
        <strong>{change.action}</strong> <code><VisibleText text={change.path} /></code>
        {change.redacted ? <span className="note"> (put back with placeholders where secrets were)</span> : null}
      </p>
      {change.conflict ? (
        <div className="undo-versions" data-testid="undo-versions">
          <span>before the call {shortState(change.target)}</span>
          <span>after it {shortState(change.expected)}</span>
          <span>now {shortState(change.current)}</span>
          <label>
            <input type="radio" name={`undo-${change.path}`} checked={choice === 'keep-current'} onChange={() => onChoose('keep-current')} /> keep the current version
          </label>
          <label>
            <input type="radio" name={`undo-${change.path}`} checked={choice === 'restore-anyway'} onChange={() => onChoose('restore-anyway')} /> restore anyway
          </label>
        </div>
      ) : null}
      <pre className="undo-diff" data-testid="undo-diff">
        <VisibleText text={change.diff} />
      </pre>
    </li>
  );
}

/**
 * "Undo this call" and "Rewind to before it", in the audit detail and under a call in Live: each first asks for the plan (a
 * dry run: nothing is written) and shows every file's diff; only the person's confirmation applies
 * it. A file changed since the call waits for the person's choice, keep it or restore anyway.
 */
export function UndoPanel({ callId }: { callId: string }) {
  const { bridge } = useConsoleSync();
  const action = useBridgeAction();
  const [rewind, setRewind] = useState(false);
  const [plan, setPlan] = useState<UndoReport>();
  const [done, setDone] = useState<UndoReport>();
  const [choices, setChoices] = useState<Record<string, Choice>>({});
  const ask = (asRewind: boolean, chosen: Record<string, Choice>) =>
    void action.run(async () => {
      setDone(undefined);
      setRewind(asRewind);
      setPlan(await bridge.undoCall({ callId, rewind: asRewind, dryRun: true, choices: chosen }));
    });
  const apply = () =>
    void action.run(async () => {
      const report = await bridge.undoCall({ callId, rewind, dryRun: false, choices });
      if (report.outcome === 'conflict') setPlan(report);
      else {
        setPlan(undefined);
        setDone(report);
      }
    });
  const conflicts = plan?.changes.filter((change) => change.conflict) ?? [];
  const undecided = conflicts.filter((change) => !choices[change.path]);
  const shown = done ?? plan;
  return (
    <section className="undo-panel" aria-label="Undo">
      <div className="undo-action">
        <button type="button" onClick={() => ask(false, {})} disabled={action.inFlight} data-testid="undo-button">
          Undo this call
        </button>
        <button type="button" onClick={() => ask(true, {})} disabled={action.inFlight} data-testid="rewind-button">
          Rewind to before this call
        </button>
      </div>
      {shown ? (
        <div className={`replay-verdict undo-report undo-${shown.outcome}`} role="status" data-testid="undo-report">
          <p className="replay-title">{OUTCOME_TITLE[shown.outcome]}</p>
          <p className="undo-reason">{shown.reason}</p>
          {shown.calls.length > 1 ? <p className="note">{countOf(shown.calls.length, 'call')} undone together, newest first.</p> : null}
          {done?.undoCallId ? <p className="note">The undo is call {done.undoCallId} in the audit: undo it to redo.</p> : null}
          <ul className="undo-files">
            {shown.changes.map((change) => (
              <PlannedFile key={change.path} change={change} choice={choices[change.path]} onChoose={(choice) => setChoices({ ...choices, [change.path]: choice })} />
            ))}
          </ul>
          {plan && !done && (plan.outcome === 'planned' || plan.outcome === 'conflict') ? (
            <button type="button" onClick={apply} disabled={action.inFlight || undecided.length > 0} data-testid="undo-confirm">
              {undecided.length > 0 ? `Choose for ${countOf(undecided.length, 'changed file')} first` : `${rewind ? 'Rewind' : 'Undo'}: change ${countOf(plan.changes.length, 'path')}`}
            </button>
          ) : null}
        </div>
      ) : null}
      <ProblemNote problem={action.problem} testId="undo-problem" />
    </section>
  );
}
