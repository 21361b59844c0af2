import type { AuditRecord } from '../../shared/audit';
import { canonicalize } from '../../shared/canonicalJson';
import type { CallDetail } from '../../shared/explorer';
import { blake3Hex } from '../../shared/hash';
import type { AuditStore } from './auditStore';

/** A record payload larger than this (canonical JSON, bytes) is shown as its size, hash and head. */
export const SHOWN_PAYLOAD_BYTES = 64 * 1024;

/** How much of a cut payload's text is shown, in characters. */
export const CUT_HEAD_CHARS = 2048;

/** Whether a recorded call of this tool and version can be re-run, and if not, why (the registry knows; the store does not). */
export type Replayable = (tool: string, version: string | undefined) => { possible: boolean; reason: string };

/** Said when the caller could not ask the registry. */
const NO_REGISTRY: Replayable = () => ({ possible: false, reason: 'replay is not available here (the tools are not loaded)' });

/** A payload as the detail pane shows it: whole, or past SHOWN_PAYLOAD_BYTES its size, BLAKE3 hash and head. */
export function shownPayload(payload: unknown): unknown {
  const text = canonicalize(payload ?? null);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes <= SHOWN_PAYLOAD_BYTES) return payload;
  return { cut: true, bytes, hash: blake3Hex(text), head: text.slice(0, CUT_HEAD_CHARS) };
}

/** The tool and version a call ran with, from its `started` record (or its `invoked` one's tool). */
function toolVersion(records: readonly AuditRecord[]): { tool: string | undefined; version: string | undefined } {
  const started = records.find((record) => record.kind === 'started')?.payload as { tool?: unknown; version?: unknown } | undefined;
  const invoked = records.find((record) => record.kind === 'invoked')?.payload as { tool?: unknown } | undefined;
  const tool = typeof started?.tool === 'string' ? started.tool : typeof invoked?.tool === 'string' ? invoked.tool : undefined;
  return { tool, version: typeof started?.version === 'string' ? started.version : undefined };
}

/**
 * One call whole for the detail pane: its explorer row, every record oldest first (a payload over
 * 64 KiB cut to its size, hash and head), the log's size, and whether replay can re-run it.
 * Undefined when the log has no such call.
 */
export function callDetail(store: AuditStore, callId: string, replayable: Replayable = NO_REGISTRY): CallDetail | undefined {
  const row = store.callIndex().row(callId);
  if (!row) return undefined;
  const records = store.forCall(callId).map((record) => ({ ...record, payload: shownPayload(record.payload) }));
  const { tool, version } = toolVersion(records);
  let replay: CallDetail['replay'];
  if (row.outcome !== 'completed') {
    replay = { possible: false, reason: `the call did not complete (it ${row.outcome === 'open' ? 'is still under way' : `ended ${row.outcome}`}): there is no response to compare with` };
  } else if (tool === undefined) {
    replay = { possible: false, reason: 'the call has no record of which tool ran' };
  } else {
    replay = replayable(tool, version);
  }
  return { row, records, logSize: store.size(), replay };
}

/** What a registry says of replaying a call: its tool is installed, declared Pure or Deterministic, and at the recorded version. */
export function registryReplayable(registry: { get(name: string): { tool: { manifest: { version: string; determinism: string } } } | undefined }): Replayable {
  return (tool, version) => {
    const manifest = registry.get(tool)?.tool.manifest;
    if (!manifest) return { possible: false, reason: `${tool} is not installed in this gate` };
    if (manifest.determinism !== 'Pure' && manifest.determinism !== 'Deterministic') {
      return { possible: false, reason: `${tool} is declared ${manifest.determinism}: only Pure or Deterministic tools give the same response again` };
    }
    if (version !== undefined && version !== manifest.version) {
      return { possible: false, reason: `${tool} ran as version ${version} and ${manifest.version} is installed now: its response may differ for that reason alone` };
    }
    return { possible: true, reason: `${tool} is declared ${manifest.determinism}: re-running it should give the same response hash` };
  };
}
