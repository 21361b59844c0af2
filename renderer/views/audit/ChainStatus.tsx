import type { VerifyState } from '../../store/consoleState';
import { countOf } from '../../../shared/plural';

/** The verdict as one sentence; the exact wording is what people and the e2e specs read. */
export function chainStatusText(verify: VerifyState): string {
  const report = verify.report;
  if (!report) return verify.error ? `Could not verify the chain: ${verify.error}` : 'Verifying the chain…';
  if (report.ok) return `Chain verified (${countOf(report.records, 'record')})`;
  const where = report.firstBadSeq === undefined ? 'Chain not verified' : `Chain broken at seq ${report.firstBadSeq}`;
  return `${where}: ${report.reason ?? 'no reason given'}`;
}

/** The audit chain's verdict and a button to check again. */
export function ChainStatus({ verify, onVerify }: { verify: VerifyState; onVerify: () => void }) {
  const tone = !verify.report ? 'pending' : verify.report.ok ? 'ok' : 'broken';
  return (
    <div className={`chain-status-bar chain-${tone}`}>
      <p role="status" data-testid="chain-status" className="chain-status">
        {chainStatusText(verify)}
      </p>
      {verify.running || verify.stale ? <span className="note">checking new records…</span> : null}
      {verify.report && verify.error ? <span className="note">last check failed: {verify.error}</span> : null}
      <button type="button" onClick={onVerify} disabled={verify.running}>
        Verify again
      </button>
    </div>
  );
}
