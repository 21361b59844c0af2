import { CONSOLE_EXPORT_CALLS, type ExplorerFilter, type ExportFormat, type ExportResult } from '../../shared/explorer';
import type { AuditStore } from './auditStore';
import { exportChunks, exportFileName, withRecords, type CallSource } from './exportCalls';

/**
 * The most text the console's export holds (characters), whatever the call count: with content, one
 * call's output alone may be a megabyte, and the file travels to the browser in one message.
 */
export const CONSOLE_EXPORT_CHARS = 64 * 1024 * 1024;

/** What the console asks to export: its view's filter, the format, and whether to include content. */
export interface ExportViewRequest {
  filter: ExplorerFilter;
  format: ExportFormat;
  content: boolean;
}

/**
 * The console's export of its filtered view, as one text to download: the newest calls, at most
 * CONSOLE_EXPORT_CALLS of them and about CONSOLE_EXPORT_CHARS of text, and `cut` when more matched
 * (the CLI exports the rest).
 */
export function exportView(store: AuditStore, request: ExportViewRequest, calls: CallSource, options: { now?: Date; limit?: number; maxChars?: number } = {}): ExportResult {
  const limit = options.limit ?? CONSOLE_EXPORT_CALLS;
  const maxChars = options.maxChars ?? CONSOLE_EXPORT_CHARS;
  let chars = 0;
  let taken = 0;
  let cut = false;
  // Pulled one call at a time as the text is built, so the budget is checked before each next call
  // (the first is always taken: a file with no call would say nothing).
  function* withinBudget() {
    for (const row of calls(store, request.filter)) {
      if (taken === limit || (taken > 0 && chars >= maxChars)) {
        cut = true;
        return;
      }
      taken++;
      yield row;
    }
  }
  const parts: string[] = [];
  for (const chunk of exportChunks(withRecords(withinBudget(), (callId) => store.forCall(callId)), { format: request.format, content: request.content })) {
    parts.push(chunk);
    chars += chunk.length;
  }
  return {
    text: parts.join(''),
    fileName: exportFileName(request.format, options.now ?? new Date()),
    calls: taken,
    ...(cut ? { cut: true } : {}),
  };
}
