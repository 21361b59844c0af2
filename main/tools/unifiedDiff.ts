import { formatPatch } from 'diff';
import { changeHunks } from '../../shared/diffHunks';

/**
 * The unified diff of a file change for a person to judge. Its hunks are changeHunks(before, after),
 * the very hunks a prompt numbers and an edit leaves out; a change too large to diff line by line
 * within the time limit is shown as a whole-file replacement instead of never being shown.
 */
export function unifiedDiff(path: string, before: string, after: string): string {
  return formatPatch({ oldFileName: `a/${path}`, newFileName: `b/${path}`, oldHeader: undefined, newHeader: undefined, hunks: changeHunks(before, after) });
}
