import type { PolicyDecision } from './tierPolicy';
import type { CallParts } from './callParts';
import { resolvesTo, shownPath } from './pathRule';

/** The first file or folder a shell line reaches outside the workspace, or one only the run places, in words. */
function outsideReach(parts: CallParts, workspace: string): string | undefined {
  const redirects = parts.redirects.map((redirect) => ({ accesses: [redirect.access], written: redirect.written, paths: redirect.reaches, unknown: undefined }));
  for (const reach of [...parts.reaches, ...redirects]) {
    // Writes outside the workspace are held by the sandbox (the rest of the machine is read-only there); reads are not.
    if (!reach.accesses.includes('read')) continue;
    if (reach.unknown !== undefined) return `${reach.written}, which only the run places (${reach.unknown})`;
    const outside = reach.paths.find((path) => path.inWorkspace === undefined);
    if (outside) return `${shownPath(outside.written, resolvesTo(outside))}, outside the workspace ${workspace}`;
  }
  return undefined;
}

/**
 * An allow of a shell line turned into a question when the line reads a file or folder outside the
 * workspace (after `~`, `~user`, globs, `cd` and symlinks), or one whose place only the run decides.
 * The sandbox shows the rest of the machine read-only, so a rule like `cat *` would otherwise read
 * ~/.ssh unasked: a rule vouches for reading in the workspace, a person for anything beyond it.
 */
export function askForOutsideReach(parts: CallParts, decision: PolicyDecision, workspace: string): PolicyDecision {
  if (decision.decision !== 'allow' || parts.commands === undefined) return decision;
  const outside = outsideReach(parts, workspace);
  if (outside === undefined) return decision;
  // The allow's provenance goes with it: what decided is this check, which the reason says, not the rule.
  const { provenance: _allowedBy, ...rest } = decision;
  return {
    ...rest,
    decision: 'ask',
    rule: 'outside-workspace',
    reason: `the command reaches ${outside}, so a person decides although ${decision.reason}`,
  };
}
