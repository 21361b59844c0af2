import { newCallId } from '../audit/callId';
import { existsSync } from 'node:fs';
import { hostname, userInfo } from 'node:os';
import type { AuditVerifyReport, OpenCall } from '../../shared/audit';
import { GateError } from '../../shared/errors';
import { missingDatabaseFinding } from '../audit/anchorCheck';
import { AuditStore } from '../audit/auditStore';
import { readAnchor } from '../audit/headAnchor';
import { builtAssets, statePaths } from '../state/paths';
import { readGateAddress, type GateAddress } from '../state/stateFolder';
import { UsageError, flag, type ParsedArgs } from './argv';
import { checkpointExitCode, checkpointReport, printCheckpointReport } from './auditCheckpoint';
import { checkpointDirReport, printCheckpointDirReport } from './auditCheckpointDir';
import { noAuditLog } from './auditLog';
import type { Io } from './commands';
import { countOf, nounFor } from '../../shared/plural';

/** Open calls listed one per line; past this many, the rest are counted. */
const OPEN_CALLS_LISTED = 20;

type Paths = ReturnType<typeof statePaths>;

/** The gate running on this state folder, if one is. */
export function runningGate(home: string): GateAddress | undefined {
  try {
    return readGateAddress(home);
  } catch {
    return undefined;
  }
}

/**
 * Verifies the log read-only; a database SQLite cannot read is a failed check, not a crash. A large
 * log's chain is walked in worker threads; any finding is walked again in one thread to name it.
 */
async function verifyReport(paths: Paths): Promise<AuditVerifyReport> {
  let store: AuditStore;
  try {
    store = new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly: true });
  } catch (error) {
    return unreadable(paths, error);
  }
  try {
    return await store.verifyInThreads(builtAssets().chainWorker);
  } catch (error) {
    return unreadable(paths, error);
  } finally {
    store.close();
  }
}

function unreadable(paths: Paths, error: unknown): AuditVerifyReport {
  // The store's own refusal already names the file and what to do; a failure further in does not.
  const reason =
    error instanceof GateError ? error.message : `the audit database ${paths.audit} cannot be read as SQLite (${(error as Error).message}): it was damaged or replaced`;
  return { ok: false, records: 0, problem: 'database-unreadable', reason };
}

function describeOpenCalls(calls: OpenCall[], gate: GateAddress | undefined): string {
  const lines = calls.slice(0, OPEN_CALLS_LISTED).map((call) => `  ${call.callId}  at ${call.lastKind} since ${call.lastTime} (seq ${call.lastSeq})`);
  if (calls.length > OPEN_CALLS_LISTED) lines.push(`  … and ${calls.length - OPEN_CALLS_LISTED} more`);
  const heading = gate
    ? `${countOf(calls.length, 'call')} under way in the running gate (pid ${gate.pid}), not ended yet:`
    : `${countOf(calls.length, 'call')} ${nounFor(calls.length, 'has', 'have')} no end record and no gate is running: the gate stopped before ${nounFor(calls.length, 'it', 'they')} ended ` +
      `(it was killed, crashed or the machine lost power). The next start of the gate records ${nounFor(calls.length, 'it', 'them')} as interrupted.`;
  return `${heading}\n${lines.join('\n')}\n`;
}

function printReport(report: AuditVerifyReport, io: Io, json: boolean): number {
  const gate = report.openCalls ? runningGate(io.home) : undefined;
  if (json) io.out(`${JSON.stringify({ ...report, gateRunning: gate !== undefined })}\n`);
  else if (!report.ok) {
    io.err(`audit log ${report.firstBadSeq === undefined ? 'not verified' : `broken at seq ${report.firstBadSeq}`}: ${report.reason}\n`);
  } else {
    io.out(`audit log intact: ${report.records} records verified\n`);
    if (report.openCalls) io.out(describeOpenCalls(report.openCalls, gate));
  }
  return report.ok ? 0 : 1;
}

/**
 * Re-anchors a log whose anchor is missing, at its current head, after checking the chain itself,
 * and says so in the log. Anyone who can write the state folder can do this too: only signed
 * checkpoints kept outside it can tell a deliberate acceptance from a cover-up.
 */
async function acceptMissingAnchor(paths: Paths, io: Io): Promise<number> {
  const gate = runningGate(io.home);
  if (gate) {
    io.err(`toolgate audit: a gate is running for ${io.home} (pid ${gate.pid}) and is the log's only writer; stop it first\n`);
    return 2;
  }
  const before = await verifyReport(paths);
  if (before.ok) {
    io.err(`toolgate audit: nothing to accept: the log verifies with its head anchor (${before.records} records)\n`);
    return 2;
  }
  if (before.problem !== 'anchor-missing') {
    io.err(`toolgate audit: --accept-missing-anchor accepts only a missing head anchor, and this log has another problem: ${before.reason}\n`);
    return 1;
  }
  const store = new AuditStore({ path: paths.audit, headPath: paths.auditHead, acceptMissingAnchor: true });
  let accepted;
  try {
    const [head] = store.list({ limit: 1 });
    accepted = store.append({
      callId: newCallId(),
      kind: 'anchor-accepted',
      payload: {
        reason: 'the head anchor file was missing; a person accepted the log as it was',
        acceptedHead: { seq: head!.seq, hash: head!.hash },
        by: personName(),
      },
    });
  } finally {
    store.close();
  }
  io.out(
    `accepted: the log's ${before.records} records are anchored again, and record ${accepted.seq} (anchor-accepted) says so.\n` +
      'Records cut before the anchor went missing cannot be found any more, and anyone who can write the state folder could do the same; ' +
      'only checkpoints signed and kept outside it tell the two apart.\n',
  );
  return printReport(await verifyReport(paths), io, false);
}

/** user@host of the person at the command line, for records a person's act writes. */
export function personName(): string {
  try {
    return `${userInfo().username}@${hostname()}`;
  } catch {
    return `uid ${process.getuid?.() ?? 'unknown'}@${hostname()}`;
  }
}

/**
 * `toolgate audit verify [--json] [--accept-missing-anchor] [--checkpoint FILE | --checkpoint-dir DIR] [--key VERIFIERKEY]`:
 * exit 0 intact (and every checkpoint verified), 1 damaged (named), 2 nothing to check (no log, or
 * checkpoints that sign nothing yet).
 */
export async function auditVerifyCommand(args: ParsedArgs, io: Io): Promise<number> {
  const paths = statePaths(io.home);
  const json = flag(args, 'json') === 'true';
  if (!existsSync(paths.audit)) {
    const finding = missingDatabaseFinding(readAnchor(paths.auditHead), paths.audit);
    if (finding) return printReport({ ok: false, records: 0, ...finding }, io, json);
    io.err(`${noAuditLog(io)}\n`);
    return 2;
  }
  if (flag(args, 'accept-missing-anchor') === 'true') return acceptMissingAnchor(paths, io);
  const checkpointFile = flag(args, 'checkpoint');
  const checkpointDir = flag(args, 'checkpoint-dir');
  if (checkpointFile !== undefined && checkpointDir !== undefined) throw new UsageError('give --checkpoint FILE or --checkpoint-dir DIR, not both');
  const team = flag(args, 'team') === 'true';
  if ([checkpointFile, checkpointDir, team || undefined].filter((given) => given !== undefined).length > 1) throw new UsageError('give one of --checkpoint FILE, --checkpoint-dir DIR or --team');
  if (checkpointFile === undefined && checkpointDir === undefined && !team) return printReport(await verifyReport(paths), io, json);
  // Both checks, both reported: a recomputed chain passes the first and fails the second.
  if (checkpointDir !== undefined) {
    const folder = checkpointDirReport(args, io, checkpointDir);
    const report = await verifyReport(paths);
    const folderCode = folder.problem ? 1 : checkpointExitCode(folder.checkpoints);
    if (json) {
      io.out(`${JSON.stringify({ ...report, checkpointDir: folder })}\n`);
      return report.ok ? folderCode : 1;
    }
    const chainCode = printReport(report, io, false);
    const code = printCheckpointDirReport(folder, io);
    return chainCode === 0 ? code : 1;
  }
  // The NATS client is loaded only to ask a team.
  const checkpoint = team ? await (await import('../team/teamAuditVerify')).teamCheckpointReport(io.home, flag(args, 'key')) : checkpointReport(args, io, checkpointFile!);
  const report = await verifyReport(paths);
  if (json) {
    io.out(`${JSON.stringify({ ...report, checkpoint })}\n`);
    return report.ok ? checkpointExitCode([checkpoint]) : 1;
  }
  const chainCode = printReport(report, io, false);
  printCheckpointReport(checkpoint, io);
  return chainCode === 0 ? checkpointExitCode([checkpoint]) : 1;
}
