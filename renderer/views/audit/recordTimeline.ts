import type { AuditRecord } from '../../../shared/audit';
import { formatDuration } from '../../format/time';

/** One step of a call's timeline: its record, when it was written, and how long after the step before. */
export interface TimelineStep {
  readonly record: AuditRecord;
  /** Milliseconds since the call's first record. */
  readonly sinceStartMs: number;
  /** Milliseconds since the step before (absent for the first). */
  readonly gapMs: number | undefined;
}

/** A call's records oldest first, each with its time since the start and the gap from the step before. */
export function recordTimeline(records: readonly AuditRecord[]): TimelineStep[] {
  const ordered = [...records].sort((a, b) => a.seq - b.seq);
  const start = Date.parse(ordered[0]?.time ?? '');
  let previous: number | undefined;
  return ordered.map((record) => {
    const at = Date.parse(record.time);
    const step = {
      record,
      sinceStartMs: Number.isNaN(at) || Number.isNaN(start) ? 0 : at - start,
      gapMs: previous === undefined || Number.isNaN(at) ? undefined : at - previous,
    };
    previous = Number.isNaN(at) ? previous : at;
    return step;
  });
}

/** A payload the gate cut because it was too large: its size and, when given, its hash. */
export interface CutPayload {
  readonly bytes: number;
  readonly hash: string | undefined;
  readonly head: string | undefined;
}

/** The cut-payload marker (`{ cut: true, bytes, hash?, head? }`) inside a value, if it is one. */
export function cutPayload(value: unknown): CutPayload | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const marker = value as Record<string, unknown>;
  if (marker.cut !== true && marker.truncated !== true) return undefined;
  const bytes = typeof marker.bytes === 'number' ? marker.bytes : typeof marker.size === 'number' ? marker.size : undefined;
  if (bytes === undefined) return undefined;
  return {
    bytes,
    hash: typeof marker.hash === 'string' ? marker.hash : typeof marker.sha256 === 'string' ? marker.sha256 : undefined,
    head: typeof marker.head === 'string' ? marker.head : undefined,
  };
}

/** A payload field of the first record of `kind`, or undefined. */
export function payloadOf(records: readonly AuditRecord[], kind: AuditRecord['kind']): Record<string, unknown> | undefined {
  const record = records.find((r) => r.kind === kind);
  const payload = record?.payload;
  return typeof payload === 'object' && payload !== null ? (payload as Record<string, unknown>) : undefined;
}

/** A byte count in words: 812 B, 14.2 KiB, 3.1 MiB. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** A gap between steps: +0 ms, +1.2 s. */
export function formatGap(ms: number | undefined): string {
  return ms === undefined ? '' : `+${formatDuration(ms)}`;
}
