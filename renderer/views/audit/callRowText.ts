import type { CallRow } from '../../../shared/explorer';
import { formatDuration } from '../../format/time';

/** Who decided a call, in words: "rule shell_exec(git *)", "person (approved)", "timeout". */
export function decidedText(row: CallRow): string {
  if (!row.decider) return row.decision ?? '';
  const detail = row.decider === 'person' ? row.decidedDetail : (row.rule ?? row.decidedDetail);
  return detail ? `${row.decider}: ${detail}` : row.decider;
}

/** A duration cell: blank when it did not apply. */
export function durationText(ms: number | undefined): string {
  return ms === undefined ? '—' : formatDuration(ms);
}

/** A call's time as the list shows it: the date when it is not today, then the wall clock. */
export function rowTime(iso: string, now: Date = new Date()): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const clock = date.toLocaleTimeString(undefined, { hour12: false });
  return date.toDateString() === now.toDateString() ? clock : `${date.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })} ${clock}`;
}
