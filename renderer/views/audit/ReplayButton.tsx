import { useState } from 'react';
import type { CallDetail, ReplayReport } from '../../../shared/explorer';
import { ProblemNote } from '../common/ProblemNote';
import { useBridgeAction } from '../common/useBridgeAction';
import { useConsoleSync } from '../consoleContext';
import '../../styles/replay.css';

/** Headlines of the verdicts; the exact wording is what people and the specs read. */
const VERDICT_TITLE: Record<ReplayReport['verdict'], string> = {
  same: 'Same response',
  different: 'Different response',
  'not-replayable': 'Not re-run',
};

/** The version line: which version ran then, which is installed now, said plainly when they differ. */
export function versionNote(report: Pick<ReplayReport, 'recordedVersion' | 'currentVersion'>): string | undefined {
  const { recordedVersion: then, currentVersion: now } = report;
  if (!then && !now) return undefined;
  if (then && !now) return `Recorded with version ${then}; the tool is no longer registered.`;
  if (then && now && then !== now) return `The tool's version changed: ${then} when recorded, ${now} now.`;
  return `Same tool version: ${now ?? then}.`;
}

/** A replay's verdict: what was compared, both hashes and the version note. */
export function ReplayVerdict({ report }: { report: ReplayReport }) {
  const note = versionNote(report);
  return (
    <div className={`replay-verdict replay-${report.verdict}`} role="status" data-testid="replay-verdict">
      <p className="replay-title">{VERDICT_TITLE[report.verdict]}</p>
      <p className="replay-reason">{report.reason}</p>
      {note ? <p className="note" data-testid="replay-version">{note}</p> : null}
      {report.recordedHash || report.replayedHash ? (
        <dl className="replay-hashes">
          {report.recordedHash ? (
            <>
              <dt>Recorded</dt>
              <dd data-testid="replay-recorded-hash">{report.recordedHash}</dd>
            </>
          ) : null}
          {report.replayedHash ? (
            <>
              <dt>Replayed</dt>
              <dd data-testid="replay-replayed-hash">{report.replayedHash}</dd>
            </>
          ) : null}
          {report.replayCallId ? (
            <>
              <dt>Replay call</dt>
              <dd>{report.replayCallId}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
    </div>
  );
}

/** What the panel shows: the button's state, the last verdict and the last failure. */
export interface ReplayPanelProps {
  replay?: CallDetail['replay'];
  running: boolean;
  report?: ReplayReport;
  problem?: string;
  onReplay: () => void;
}

/**
 * The Replay button with its explanation: disabled, with the reason shown beside it, when the call
 * cannot be re-run; otherwise it re-runs the call (as a new, audited call) and shows the verdict.
 */
export function ReplayPanel({ replay, running, report, problem, onReplay }: ReplayPanelProps) {
  const possible = replay?.possible ?? true;
  return (
    <section className="replay-panel" aria-label="Replay">
      <div className="replay-action">
        <button type="button" onClick={onReplay} disabled={!possible || running} aria-describedby="replay-explanation" data-testid="replay-button">
          {running ? 'Replaying…' : 'Replay'}
        </button>
        <span id="replay-explanation" className="note" data-testid="replay-explanation">
          {replay ? replay.reason : 'Re-runs the call with its recorded input and compares the response hash.'}
        </span>
      </div>
      {report ? <ReplayVerdict report={report} /> : null}
      <ProblemNote problem={problem} testId="replay-problem" />
    </section>
  );
}

/** Replays one recorded call through the console bridge (the detail pane's Replay button). */
export function ReplayButton({ callId, replay }: { callId: string; replay?: CallDetail['replay'] }) {
  const { bridge } = useConsoleSync();
  const action = useBridgeAction();
  const [report, setReport] = useState<ReplayReport>();
  const onReplay = () =>
    void action.run(async () => {
      setReport(undefined);
      setReport(await bridge.replayCall({ callId }));
    });
  return (
    <ReplayPanel
      {...(replay ? { replay } : {})}
      running={action.inFlight}
      {...(report ? { report } : {})}
      {...(action.problem ? { problem: action.problem } : {})}
      onReplay={onReplay}
    />
  );
}
