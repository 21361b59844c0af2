import { useCallback, useEffect, useState } from 'react';
import type { CheckpointStatus } from '../../../shared/explorer';
import { describe } from '../../store/consoleSync';
import { useConsoleSync } from '../consoleContext';
import { ProblemNote } from '../common/ProblemNote';
import { countOf } from '../../../shared/plural';

/** How often the panel asks again while it is shown (a checkpoint comes every 1000 records or minute). */
const REFRESH_MS = 30_000;

/**
 * The audit log's proof beyond its chain: the key that signs checkpoints (to copy somewhere the
 * agent cannot reach), the folder they go to, and the newest one: its size, time, root and whether
 * it verifies; or what is missing and how to set it up.
 */
export function CheckpointPanel() {
  const sync = useConsoleSync();
  const [status, setStatus] = useState<CheckpointStatus>();
  const [problem, setProblem] = useState<string>();
  const [copied, setCopied] = useState(false);

  const load = useCallback(async () => {
    try {
      setStatus(await sync.checkpointStatus());
      setProblem(undefined);
    } catch (error) {
      setProblem(`Could not read the checkpoint state: ${describe(error)}`);
    }
  }, [sync]);

  useEffect(() => {
    void load();
    const timer = setInterval(() => void load(), REFRESH_MS);
    return () => clearInterval(timer);
  }, [load]);

  const copyKey = async () => {
    if (!status?.verifierKey) return;
    try {
      await navigator.clipboard.writeText(status.verifierKey);
      setCopied(true);
      setTimeout(() => setCopied(false), 2000);
    } catch (error) {
      setProblem(`Could not copy the key: ${describe(error)}; select it and copy it by hand`);
    }
  };

  return <CheckpointStatusView status={status} problem={problem} copied={copied} onCopy={() => void copyKey()} />;
}

/** The panel's content for one answer of checkpointStatus (or none yet, or a failure to ask). */
export function CheckpointStatusView({ status, problem, copied, onCopy }: { status: CheckpointStatus | undefined; problem: string | undefined; copied: boolean; onCopy: () => void }) {
  const latest = status?.latest;
  return (
    <section className="checkpoint-panel" aria-label="Signed checkpoints" data-testid="checkpoint-panel">
      <h3>Signed checkpoints</h3>
      {!status && !problem ? <p className="note">Reading the checkpoint state…</p> : null}
      {status?.verifierKey ? (
        <div className="checkpoint-key">
          <span>Verifier key</span>
          <code data-testid="checkpoint-key">{status.verifierKey}</code>
          <button type="button" onClick={onCopy}>
            {copied ? 'Copied' : 'Copy'}
          </button>
          <span className="note">keep a copy away from this machine; check with toolgate audit verify --checkpoint FILE --key KEY</span>
        </div>
      ) : null}
      {status?.folder ? (
        <p>
          Folder <code data-testid="checkpoint-folder">{status.folder}</code>
        </p>
      ) : null}
      {latest ? (
        <p role="status" data-testid="checkpoint-latest" className={latest.size === 0 ? 'note' : latest.verified ? 'chain-ok' : 'chain-broken'}>
          {latest.size === 0 ? 'Nothing signed yet' : latest.verified ? 'Verified' : 'Not verified'}: {countOf(latest.size, 'record')}, written {new Date(latest.writtenAt).toLocaleString()}, root{' '}
          <code>{latest.rootHash}</code> — {latest.detail}
        </p>
      ) : null}
      {status?.problem ? (
        <p className="note" data-testid="checkpoint-problem">
          {status.problem}
        </p>
      ) : null}
      <ProblemNote problem={problem} testId="checkpoint-load-problem" />
    </section>
  );
}
