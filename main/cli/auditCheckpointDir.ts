import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { CheckpointReport } from '../audit/checkpointCheck';
import { describeKeyEntry } from '../audit/checkpointKeyHistory';
import { logCheckpointFiles, otherLogsIn } from '../audit/checkpointTrust';
import { checkpointOrigin } from '../audit/checkpointWriter';
import { UsageError, type ParsedArgs } from './argv';
import { checkNote, checkpointExitCode, openLogReadOnly, printCheckpointReport, readCheckpointFile, trustedKeys } from './auditCheckpoint';
import type { Io } from './commands';

/** One checkpoint of the folder and what its check found. */
export type FolderCheckpointReport = CheckpointReport & { file: string };

/** The check of a whole checkpoint folder: the key history as read, and each checkpoint of the log. */
export interface CheckpointDirReport {
  dir: string;
  keyHistory: string[];
  checkpoints: FolderCheckpointReport[];
  /** Origins of the other logs whose checkpoints lie in the folder (another gate's, or a log this one replaced). */
  otherLogs: string[];
  /** Set when the folder holds no checkpoint of this log at all. */
  problem?: string;
}

/**
 * Checks the log read-only against every checkpoint of it in `dir` (`audit verify --checkpoint-dir`):
 * each under the key in force for its tree size by the folder's key history (or `--key`), each
 * consistent with the log. A folder with checkpoints of other logs only is a failure of its own: the
 * log they signed may have been replaced by this one.
 */
export function checkpointDirReport(args: ParsedArgs, io: Io, dirArg: string): CheckpointDirReport {
  const dir = resolve(dirArg);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--checkpoint-dir ${dirArg}: no such folder`);
  const store = openLogReadOnly(io.home);
  try {
    const logId = store.logId();
    const files = logId ? logCheckpointFiles(dir, logId) : [];
    const others = logId ? otherLogsIn(dir, logId) : [];
    if (files.length === 0) {
      const origin = logId ? checkpointOrigin(logId) : 'a log without an id (written before checkpoints existed)';
      return {
        dir,
        keyHistory: [],
        checkpoints: [],
        otherLogs: others.map(checkpointOrigin),
        problem:
          `${dir} holds no checkpoint of this log (${origin})` +
          (others.length > 0 ? `; it holds checkpoints of ${others.map(checkpointOrigin).join(', ')}: this log may have replaced the one they sign` : ': nothing to check it against'),
      };
    }
    const keys = trustedKeys(args, store, dir, dir);
    const checkpoints = files.map((file) => ({ file, ...checkNote(store, readCheckpointFile(file), file, keys) }));
    return { dir, keyHistory: keys.history.map(describeKeyEntry), checkpoints, otherLogs: others.map(checkpointOrigin) };
  } finally {
    store.close();
  }
}

/** Prints a folder check, one line per checkpoint and a count; returns its exit code (as checkpointExitCode, 1 for a folder without this log). */
export function printCheckpointDirReport(report: CheckpointDirReport, io: Io): number {
  if (report.problem) {
    io.err(`checkpoint folder check failed: ${report.problem}\n`);
    return 1;
  }
  if (report.keyHistory.length > 0) io.out(`key history in ${report.dir}:\n${report.keyHistory.map((line) => `  ${line}\n`).join('')}`);
  for (const checkpoint of report.checkpoints) printCheckpointReport(checkpoint, io, checkpoint.file);
  if (report.otherLogs.length > 0) {
    io.out(`${report.dir} also holds checkpoints of ${report.otherLogs.join(', ')}: not checked, as they sign other logs (another gate's, or one this log replaced)\n`);
  }
  const verified = report.checkpoints.filter((checkpoint) => checkpoint.ok).length;
  const empty = report.checkpoints.filter((checkpoint) => checkpoint.problem === 'nothing-signed').length;
  const failed = report.checkpoints.length - verified - empty;
  const summary = `checkpoints of this log in ${report.dir}: ${verified} verified, ${empty} with nothing signed yet, ${failed} failed\n`;
  const code = checkpointExitCode(report.checkpoints);
  if (code === 0) io.out(summary);
  else io.err(summary);
  return code;
}
