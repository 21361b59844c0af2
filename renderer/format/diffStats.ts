/** Lines added and removed by a change. */
export interface DiffStats {
  added: number;
  removed: number;
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;

/**
 * Counts added and removed lines of a unified diff. Lines are counted inside hunks only, using the
 * hunk header's lengths, so a removed line that reads "-- x" (shown as "--- x") is not mistaken
 * for a file header.
 */
export function countDiffLines(unified: string): DiffStats {
  const stats: DiffStats = { added: 0, removed: 0 };
  let oldLeft = 0;
  let newLeft = 0;
  for (const line of unified.split('\n')) {
    if (oldLeft === 0 && newLeft === 0) {
      const header = HUNK_HEADER.exec(line);
      if (header) {
        oldLeft = header[1] === undefined ? 1 : Number(header[1]);
        newLeft = header[2] === undefined ? 1 : Number(header[2]);
      }
      continue;
    }
    if (line.startsWith('+')) {
      stats.added += 1;
      newLeft -= 1;
    } else if (line.startsWith('-')) {
      stats.removed += 1;
      oldLeft -= 1;
    } else if (line.startsWith(' ') || line === '') {
      oldLeft -= 1;
      newLeft -= 1;
    }
    // "\ No newline at end of file" belongs to the previous line and counts for neither side.
    oldLeft = Math.max(0, oldLeft);
    newLeft = Math.max(0, newLeft);
  }
  return stats;
}

/** "+N −M", with a real minus sign. */
export function formatDiffStats(stats: DiffStats): string {
  return `+${stats.added} \u2212${stats.removed}`;
}
