import { CONSOLE_EXPORT_CALLS, type ExplorerFilter, type ExportFormat, type ExportResult } from '../../shared/explorer';
import type { AuditStore } from './auditStore';
import { exportChunks, exportFileName, withRecords, type CallSource } from './exportCalls';

/** What the console asks to export: its view's filter, the format, and whether to include content. */
export interface ExportViewRequest {
  filter: ExplorerFilter;
  format: ExportFormat;
  content: boolean;
}

/** The first `limit` items, and whether there were more. */
function firstOf<T>(items: Iterable<T>, limit: number): { taken: T[]; more: boolean } {
  const taken: T[] = [];
  for (const item of items) {
    if (taken.length === limit) return { taken, more: true };
    taken.push(item);
  }
  return { taken, more: false };
}

/**
 * The console's export of its filtered view, as one text to download: at most `limit` calls
 * (CONSOLE_EXPORT_CALLS), newest first, and `cut` when more matched (the CLI exports the rest).
 */
export function exportView(store: AuditStore, request: ExportViewRequest, calls: CallSource, options: { now?: Date; limit?: number } = {}): ExportResult {
  const { taken, more } = firstOf(calls(store, request.filter), options.limit ?? CONSOLE_EXPORT_CALLS);
  const text = [...exportChunks(withRecords(taken, (callId) => store.forCall(callId)), { format: request.format, content: request.content })].join('');
  return {
    text,
    fileName: exportFileName(request.format, options.now ?? new Date()),
    calls: taken.length,
    ...(more ? { cut: true } : {}),
  };
}
