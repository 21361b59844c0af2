import { useMemo } from 'react';
import { describeHunk, diffHunks, type DiffHunk } from '../../../../shared/diffHunks';

/** The hunks of a diff, or why they cannot be told apart (a diff of the prompt that cannot be split). */
function hunksOf(before: string, after: string): DiffHunk[] | { failure: string } {
  try {
    return diffHunks(before, after);
  } catch (error) {
    return { failure: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * One switch per hunk of a file diff: checked hunks are written, unchecked ones left out. The gate
 * computes what is written from the file and the accepted hunks; this only says which.
 */
export function HunkToggles({
  before,
  after,
  rejected,
  disabled,
  onChange,
}: {
  /** The file as previewed and as proposed: the hunks are computed from these, never from the diff's text. */
  before: string;
  after: string;
  rejected: readonly number[];
  /** Set while another kind of edit is under way. */
  disabled: boolean;
  onChange: (rejected: number[]) => void;
}) {
  const hunks = useMemo(() => hunksOf(before, after), [before, after]);
  if (!Array.isArray(hunks)) {
    return (
      <p className="hint" data-testid="hunk-toggles-unavailable">
        Hunks cannot be chosen for this diff ({hunks.failure}); edit the right pane or deny the call.
      </p>
    );
  }
  // One hunk left out is the whole change left out: that is Deny.
  if (hunks.length < 2) return null;
  return (
    <fieldset className="hunk-toggles" data-testid="hunk-toggles" disabled={disabled}>
      <legend>
        Hunks to write ({hunks.length - rejected.length} of {hunks.length})
      </legend>
      {hunks.map((hunk) => {
        const words = describeHunk(hunk);
        const included = !rejected.includes(hunk.number);
        return (
          <label key={hunk.number} className={included ? 'hunk-toggle' : 'hunk-toggle left-out'}>
            <input
              type="checkbox"
              checked={included}
              aria-label={`Write ${words}`}
              onChange={() => onChange(included ? [...rejected, hunk.number] : rejected.filter((number) => number !== hunk.number))}
            />{' '}
            {words[0]!.toUpperCase() + words.slice(1)}{' '}
            <span className="diff-stats">
              <span className="added">+{hunk.added}</span> <span className="removed">{'\u2212'}{hunk.removed}</span>
            </span>
            {included ? null : <span className="hunk-left-out"> left out</span>}
          </label>
        );
      })}
    </fieldset>
  );
}
