import type { AuditRecord } from '../../shared/audit';
import { canonicalize } from '../../shared/canonicalJson';
import type { CallDetail } from '../../shared/explorer';
import { blake3Hex } from '../../shared/hash';
import type { AuditStore } from './auditStore';

/** A record payload larger than this (canonical JSON, bytes) is shown as its size, hash and head. */
export const SHOWN_PAYLOAD_BYTES = 64 * 1024;

/** How much of a cut payload's text is shown, in characters. */
export const CUT_HEAD_CHARS = 2048;

/**
 * Whether a recorded call can be re-run, and if not, why, judged from its records as they are in the
 * log (uncut): the gate's replay answers it (replay.ts), since only the registry knows the tools.
 */
export type ReplayJudge = (records: readonly AuditRecord[]) => { possible: boolean; reason: string };

/** Said when the caller could not ask the registry. */
const NO_REGISTRY: ReplayJudge = () => ({ possible: false, reason: 'replay is not available here (the tools are not loaded)' });

/** A payload as the detail pane shows it: whole, or past SHOWN_PAYLOAD_BYTES its size, BLAKE3 hash and head. */
export function shownPayload(payload: unknown): unknown {
  const text = canonicalize(payload ?? null);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= SHOWN_PAYLOAD_BYTES) return payload;
  // What the checks found in a large upstream result stays in view when its output is cut.
  const findings = typeof payload === 'object' && payload !== null ? (payload as { findings?: unknown }).findings : undefined;
  return { cut: true, bytes, hash: blake3Hex(text), head: text.slice(0, CUT_HEAD_CHARS), ...(findings !== undefined ? { findings } : {}) };
}

/**
 * One call whole for the detail pane: its explorer row, every record oldest first (a payload over
 * 64 KiB cut to its size, hash and head), the log's size, and whether replay can re-run it.
 * Undefined when the log has no such call.
 */
export function callDetail(store: AuditStore, callId: string, judgeReplay: ReplayJudge = NO_REGISTRY): CallDetail | undefined {
  const row = store.callIndex().row(callId);
  if (!row) return undefined;
  const whole = store.forCall(callId);
  const records = whole.map((record) => ({ ...record, payload: shownPayload(record.payload) }));
  return { row, records, logSize: store.lastSeq(), replay: judgeReplay(whole) };
}
