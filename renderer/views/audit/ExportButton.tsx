import { useState } from 'react';
import { CONSOLE_EXPORT_CALLS, type ExplorerFilter, type ExportFormat, type ExportResult } from '../../../shared/explorer';
import { ProblemNote } from '../common/ProblemNote';
import { useBridgeAction } from '../common/useBridgeAction';
import { useConsoleSync } from '../consoleContext';
import '../../styles/export.css';
import { countOf } from '../../../shared/plural';

/** The formats the menu offers, as a person reads them. */
const FORMATS: ReadonlyArray<{ format: ExportFormat; label: string; hint: string }> = [
  { format: 'jsonl', label: 'JSONL', hint: 'one JSON object per call per line' },
  { format: 'otlp', label: 'OpenTelemetry (OTLP JSON)', hint: 'one span per call, for a trace viewer or collector' },
];

/** What the last export held, in one sentence; the exact wording is what people and the e2e specs read. */
export function exportSummaryText(result: Pick<ExportResult, 'calls' | 'cut' | 'fileName'>): string {
  const calls = countOf(result.calls, 'call', { grouped: true });
  if (!result.cut) return `Exported ${calls} to ${result.fileName}.`;
  return (
    `Exported the newest ${calls} to ${result.fileName}; more matched than the console exports at once ` +
    `(${CONSOLE_EXPORT_CALLS.toLocaleString('en-US')} calls, less with large results). For all of them run toolgate audit export with the same filters.`
  );
}

/** Saves text as a file through a Blob link, as a browser downloads it. */
function download(text: string, fileName: string, format: ExportFormat): void {
  const blob = new Blob([text], { type: format === 'jsonl' ? 'application/x-ndjson' : 'application/json' });
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.rel = 'noopener';
  document.body.append(link);
  try {
    link.click();
  } finally {
    link.remove();
    // Revoked after the click has been handled: the download has taken the Blob by then.
    setTimeout(() => URL.revokeObjectURL(url), 0);
  }
}

/** The menu itself: format, content, and the result of the last export (presentational). */
export function ExportMenu(props: {
  format: ExportFormat;
  content: boolean;
  running: boolean;
  result?: Pick<ExportResult, 'calls' | 'cut' | 'fileName'>;
  problem?: string;
  onFormat: (format: ExportFormat) => void;
  onContent: (content: boolean) => void;
  onExport: () => void;
}) {
  return (
    <div className="export-menu" role="group" aria-label="Export this view" data-testid="export-menu">
      <fieldset>
        <legend>Format</legend>
        {FORMATS.map((option) => (
          <label key={option.format} title={option.hint}>
            <input type="radio" name="export-format" value={option.format} checked={props.format === option.format} onChange={() => props.onFormat(option.format)} />
            {option.label}
          </label>
        ))}
      </fieldset>
      <label className="export-content" title="Arguments and results may hold file contents and other private data">
        <input type="checkbox" checked={props.content} onChange={(event) => props.onContent(event.target.checked)} />
        Include arguments and results
      </label>
      <button type="button" onClick={props.onExport} disabled={props.running}>
        {props.running ? 'Exporting…' : 'Download'}
      </button>
      {props.result ? (
        <p role="status" className={props.result.cut ? 'note export-cut' : 'note'} data-testid="export-summary">
          {exportSummaryText(props.result)}
        </p>
      ) : null}
      <ProblemNote problem={props.problem} testId="export-problem" />
    </div>
  );
}

/** Exports the explorer's current view (its filter) through the console bridge and downloads the file. */
export function ExportButton({ filter }: { filter: ExplorerFilter }) {
  const { bridge } = useConsoleSync();
  const action = useBridgeAction();
  const [open, setOpen] = useState(false);
  const [format, setFormat] = useState<ExportFormat>('jsonl');
  const [content, setContent] = useState(false);
  const [result, setResult] = useState<Pick<ExportResult, 'calls' | 'cut' | 'fileName'>>();
  const onExport = () =>
    void action.run(async () => {
      setResult(undefined);
      const exported = await bridge.exportCalls({ filter, format, content });
      download(exported.text, exported.fileName, format);
      setResult({ calls: exported.calls, fileName: exported.fileName, ...(exported.cut ? { cut: true } : {}) });
    });
  return (
    <div className="export-button">
      <button type="button" aria-expanded={open} onClick={() => setOpen(!open)} data-testid="export-open">
        Export…
      </button>
      {open ? (
        <ExportMenu
          format={format}
          content={content}
          running={action.inFlight}
          {...(result ? { result } : {})}
          {...(action.problem ? { problem: action.problem } : {})}
          onFormat={setFormat}
          onContent={setContent}
          onExport={onExport}
        />
      ) : null}
    </div>
  );
}
