/**
 * Writes calls out of the audit log for other tools: JSONL (one call per line) or OTLP JSON spans.
 * Both are produced as a stream of text chunks, one call at a time, so a million calls take the
 * memory of one: the CLI pipes the chunks to a file or stdout, the console joins a capped few.
 */
import type { AuditRecord } from '../../shared/audit';
import type { CallRow, ExplorerFilter, ExportFormat } from '../../shared/explorer';
import type { AuditStore } from './auditStore';
import { callContent, callSpan, otlpEnvelope, type ExportedCall } from './otlpSpans';

export type { ExportedCall } from './otlpSpans';

/** The calls a filter matches, newest first: the explorer's query (`iterateCalls` of explorerQuery.ts). */
export type CallSource = (store: AuditStore, filter: ExplorerFilter) => Iterable<CallRow>;

/** What an export holds besides each call's summary: `content` adds arguments and outputs. */
export interface ExportOptions {
  format: ExportFormat;
  content: boolean;
}

/**
 * JSON text with the characters a terminal or an editor could act on escaped (C1 controls, bidi
 * overrides, line separators): the same JSON value, shown and never obeyed, wherever it is printed.
 */
export function inertJson(value: unknown): string {
  return JSON.stringify(value).replace(/[\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A record as the JSONL export lists it: where it sits in the chain, without its payload. */
function recordSummary(record: AuditRecord): { seq: number; kind: string; time: string; hash: string } {
  return { seq: record.seq, kind: record.kind, time: record.time, hash: record.hash };
}

/**
 * One call as a JSONL object: its row, its records' seq/kind/time/hash, and with `content` its
 * arguments and result. Without content the row's argument brief goes too: it is arguments.
 */
export function jsonlObject(call: ExportedCall, content: boolean): Record<string, unknown> {
  const { argsBrief, ...row } = call.row;
  return {
    ...row,
    ...(content ? { argsBrief } : {}),
    records: call.records.map(recordSummary),
    ...(content ? callContent(call.records) : {}),
  };
}

/** The export as text chunks: a line per call (JSONL), or the OTLP envelope with one span per chunk. */
export function* exportChunks(calls: Iterable<ExportedCall>, options: ExportOptions): Generator<string> {
  if (options.format === 'jsonl') {
    for (const call of calls) yield `${inertJson(jsonlObject(call, options.content))}\n`;
    return;
  }
  const { head, tail } = otlpEnvelope();
  yield head;
  let first = true;
  for (const call of calls) {
    yield `${first ? '' : ','}\n${inertJson(callSpan(call, { content: options.content }))}`;
    first = false;
  }
  yield `${first ? '' : '\n'}${tail}\n`;
}

/** Counts the calls that pass through, for the CLI's and the console's "N calls" line. */
export function counted<T>(items: Iterable<T>): { items: Iterable<T>; count: () => number } {
  let count = 0;
  return {
    items: (function* () {
      for (const item of items) {
        count++;
        yield item;
      }
    })(),
    count: () => count,
  };
}

/** The calls with their records, oldest first, from rows in the order given and a records lookup. */
export function* withRecords<Row extends ExportedCall['row']>(rows: Iterable<Row>, recordsOf: (callId: string) => readonly AuditRecord[]): Generator<ExportedCall> {
  for (const row of rows) yield { row, records: recordsOf(row.callId) };
}

/** A file name for an export made at `now`: `toolgate-calls-2026-11-23T14-05-00Z.jsonl` or `….otlp.json`. */
export function exportFileName(format: ExportFormat, now: Date): string {
  const stamp = now.toISOString().replace(/\.\d+Z$/, 'Z').replace(/:/g, '-');
  return `toolgate-calls-${stamp}.${format === 'jsonl' ? 'jsonl' : 'otlp.json'}`;
}
