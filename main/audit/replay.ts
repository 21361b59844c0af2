/**
 * Replay: re-runs a recorded call of a Pure or Deterministic tool and compares the response hash
 * with the one the audit kept.
 *
 * Choices, written down:
 * - The replay is a call of its own through the executor (source `console`, its invoked record
 *   naming `replayOf`), so it is audited, judged by the policy and run in a tool process of the
 *   same sandbox profile as any call. A policy that asks a person asks for the replay too.
 * - A changed tool version refuses the replay rather than running it with a warning: the issue
 *   asks for a re-run with the same version, and a different hash across versions says nothing
 *   about the record.
 * - Only calls whose recorded arguments are the whole input are re-run: the audit cuts long
 *   strings and replaces secrets, so the arguments are checked against the started record's input
 *   hash. A call that ran with secrets is not re-run at all: its record holds only placeholders,
 *   and resolving them again would send today's secrets, not the ones it received.
 * - Tools that write or spawn are never re-run, even when declared Deterministic (write_file is):
 *   a replay must not change the workspace.
 */
import type { AuditRecord } from '../../shared/audit';
import { GateError } from '../../shared/errors';
import type { ReplayReport } from '../../shared/explorer';
import { hashCanonical } from '../../shared/hash';
import { mutatingEffects } from '../../shared/manifest';
import type { Executor } from '../executor/executor';
import type { RegisteredTool, ToolRegistry } from '../registry/registry';
import type { AuditStore } from './auditStore';

/** Whether a call can be re-run, and in plain words why or why not. */
export interface Replayability {
  possible: boolean;
  reason: string;
}

/** Whether a tool at a version can be re-run now: the shape callDetail asks for, bound to a registry. */
export type Replayable = (tool: string, version: string) => Replayability;

/** What a replay needs of the gate. */
export interface ReplayDeps {
  audit: Pick<AuditStore, 'forCall'>;
  registry: ToolRegistry;
  executor: Pick<Executor, 'call'>;
}

/** A call found replayable, with the input it will be re-run with. */
interface ReplayPlan {
  entry: RegisteredTool;
  input: unknown;
  recordedHash: string;
  recordedVersion: string;
}

/** Judges a tool at the version a call ran with, against the registry as it is now. */
export function replayability(registry: ToolRegistry, tool: string, version: string): Replayability {
  const entry = registry.get(tool);
  if (!entry) return { possible: false, reason: `${tool} is no longer registered: there is nothing to re-run it with` };
  const { manifest } = entry.tool;
  if (manifest.version !== version) {
    return {
      possible: false,
      reason: `${tool} was ${version} when recorded and is ${manifest.version} now: its output may differ for that reason alone, so it is not re-run (a replay compares runs of the same version)`,
    };
  }
  const mutating = mutatingEffects(manifest.sideEffects);
  if (mutating.length > 0) {
    return { possible: false, reason: `${tool} is not replayable: it declares ${mutating.join(', ')}, and re-running it would change things again (files, data or processes)` };
  }
  if (manifest.determinism === 'Pure') return { possible: true, reason: `${tool} ${version} is pure: it can be re-run` };
  if (manifest.determinism === 'Deterministic') {
    return { possible: true, reason: `${tool} ${version} is deterministic and changes nothing: it can be re-run (its output also depends on what it reads, such as files)` };
  }
  return { possible: false, reason: `${tool} is not deterministic (${manifest.determinism}): its output may differ on every run, so a comparison would say nothing` };
}

/** Binds replayability to a registry, for the explorer's call detail. */
export function replayableIn(registry: ToolRegistry): Replayable {
  return (tool, version) => replayability(registry, tool, version);
}

function payloadOf(records: readonly AuditRecord[], kind: AuditRecord['kind']): Record<string, unknown> | undefined {
  const record = records.find((item) => item.kind === kind);
  return record && typeof record.payload === 'object' && record.payload !== null ? (record.payload as Record<string, unknown>) : undefined;
}

function stringField(payload: Record<string, unknown> | undefined, field: string): string | undefined {
  const value = payload?.[field];
  return typeof value === 'string' ? value : undefined;
}

/** The arguments the call may have run with: as the agent sent them, and as a person edited them. */
function inputCandidates(records: readonly AuditRecord[]): unknown[] {
  const candidates: unknown[] = [];
  const edit = payloadOf(records, 'approval-decided')?.edit as { edited?: unknown } | undefined;
  if (edit && 'edited' in edit) candidates.push(edit.edited);
  const invoked = payloadOf(records, 'invoked');
  if (invoked && 'arguments' in invoked) candidates.push(invoked.arguments);
  return candidates.flatMap((candidate) => {
    if (typeof candidate !== 'string') return [candidate];
    // Arguments sent as raw text are recorded as that text.
    try {
      return [JSON.parse(candidate) as unknown, candidate];
    } catch {
      return [candidate];
    }
  });
}

/** The recorded input whose hash is the started record's input hash, if the audit kept it whole. */
function wholeInput(entry: RegisteredTool, records: readonly AuditRecord[], inputHash: string): unknown {
  for (const candidate of inputCandidates(records)) {
    const parsed = entry.tool.input.safeParse(candidate);
    if (parsed.success && hashCanonical(parsed.data) === inputHash) return parsed.data;
  }
  return undefined;
}

/**
 * Judges one recorded call from its audit records: whether it can be re-run now, and why.
 * Every check the replay itself makes, so the detail pane and the replay agree.
 */
export function callReplayability(registry: ToolRegistry, records: readonly AuditRecord[]): Replayability {
  const judged = planReplay(registry, records);
  return 'refusal' in judged ? { possible: false, reason: judged.refusal } : { possible: true, reason: judged.reason };
}

function planReplay(registry: ToolRegistry, records: readonly AuditRecord[]): { refusal: string } | (ReplayPlan & { reason: string }) {
  const invoked = payloadOf(records, 'invoked');
  const tool = stringField(invoked, 'tool') ?? 'the tool';
  const rejected = payloadOf(records, 'rejected');
  const started = payloadOf(records, 'started');
  if (!started) {
    if (rejected) {
      const error = rejected.error as { code?: string; message?: string } | undefined;
      return { refusal: `the call never ran (${error?.code ?? 'rejected'}: ${error?.message ?? 'refused before running'}): there is no response to compare` };
    }
    return { refusal: 'the call never ran: there is no response to compare' };
  }
  const ended = payloadOf(records, 'completed') ?? payloadOf(records, 'failed');
  const recordedHash = stringField(ended, 'responseHash');
  if (!recordedHash) return { refusal: 'the call has no recorded response hash (it has not finished, or the gate stopped while it ran): there is nothing to compare' };
  const recordedTool = stringField(started, 'tool') ?? tool;
  const recordedVersion = stringField(started, 'version');
  if (!recordedVersion) return { refusal: `the record of ${recordedTool} does not say which version ran: it cannot be re-run with the same one` };
  const judged = replayability(registry, recordedTool, recordedVersion);
  if (!judged.possible) return { refusal: judged.reason };
  const secrets = started.secrets;
  if (Array.isArray(secrets) && secrets.length > 0) {
    return { refusal: `the call received secrets (${secrets.join(', ')}): the audit keeps only their placeholders, and it is not re-run with today's values in their place` };
  }
  const entry = registry.get(recordedTool)!;
  const inputHash = stringField(started, 'inputHash');
  const input = inputHash === undefined ? undefined : wholeInput(entry, records, inputHash);
  if (input === undefined) {
    return { refusal: 'the recorded arguments are not the whole input (the audit cuts long strings and hides secrets; they do not hash to the input that ran): it is not re-run with a part of it' };
  }
  return { entry, input, recordedHash, recordedVersion, reason: judged.reason };
}

function short(hash: string): string {
  return hash.slice(0, 16);
}

/**
 * Re-runs one recorded call through the executor and compares the response hashes. An unknown
 * call id is an error (ENOTFOUND); a call that cannot be re-run is a `not-replayable` report.
 */
export async function replayCall(deps: ReplayDeps, callId: string): Promise<ReplayReport> {
  const records = deps.audit.forCall(callId);
  if (records.length === 0) {
    throw new GateError('ENOTFOUND', `no call ${JSON.stringify(callId)} in the audit log: copy a call id from the explorer or \`toolgate audit list\``);
  }
  const started = payloadOf(records, 'started');
  const tool = stringField(started, 'tool') ?? stringField(payloadOf(records, 'invoked'), 'tool');
  const versions = {
    ...(stringField(started, 'version') ? { recordedVersion: stringField(started, 'version') } : {}),
    ...(tool && deps.registry.get(tool) ? { currentVersion: deps.registry.get(tool)!.tool.manifest.version } : {}),
  };
  const plan = planReplay(deps.registry, records);
  if ('refusal' in plan) return { callId, verdict: 'not-replayable', reason: plan.refusal, ...versions };
  const { manifest } = plan.entry.tool;
  const result = await deps.executor.call({ tool: manifest.name, arguments: plan.input, source: 'console', replayOf: callId });
  const replayCallId = result.meta.callId;
  const base = { callId, replayCallId, recordedHash: plan.recordedHash, ...versions };
  if (!deps.audit.forCall(replayCallId).some((record) => record.kind === 'started')) {
    return { ...base, verdict: 'not-replayable', reason: `the replay was refused before it ran (${result.error?.code}: ${result.error?.message})` };
  }
  const replayedHash = result.meta.responseHash;
  const name = `${manifest.name} ${manifest.version}`;
  if (replayedHash === plan.recordedHash) {
    return { ...base, replayedHash, verdict: 'same', reason: `${name} gave the same response: recorded ${short(plan.recordedHash)}…, replayed ${short(replayedHash)}…` };
  }
  const why = manifest.determinism === 'Deterministic' ? ': what it reads (a file, a folder) has changed since, or it is not as deterministic as it declares' : ': it is declared pure, so it is not';
  return {
    ...base,
    replayedHash,
    verdict: 'different',
    reason: `${name} gave a different response: recorded ${short(plan.recordedHash)}…, replayed ${short(replayedHash)}…${why}`,
  };
}
