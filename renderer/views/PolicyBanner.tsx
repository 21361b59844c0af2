import { describePolicyProblem } from '../../shared/policy';
import { useConsoleState } from './consoleContext';

/**
 * One banner per policy file refused whole (not JSON, an unknown tool, a malformed rule, a failing
 * example), naming the file, the line and the fix: until it is fixed, every call it could have
 * allowed asks. Untrusted project files are noted too.
 */
export function PolicyBanner() {
  const policy = useConsoleState((s) => s.info?.policy);
  if (!policy || (policy.problems.length === 0 && policy.notices.length === 0)) return null;
  return (
    <>
      {policy.problems.map((problem, index) => (
        <div key={`${problem.layer}:${problem.file}:${index}`} className="banner banner-error" role="alert" data-testid="policy-banner">
          Policy file refused, so every call it could have allowed asks instead: {describePolicyProblem(problem)}
        </div>
      ))}
      {policy.notices.map((notice) => (
        <div key={notice} className="banner banner-warning" role="status" data-testid="policy-notice">
          {notice}
        </div>
      ))}
    </>
  );
}
