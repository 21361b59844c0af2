import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { ExportMenu, exportSummaryText } from '../../renderer/views/audit/ExportButton';

const noop = () => undefined;

describe('the audit explorer export menu', () => {
  it('offers JSONL and OTLP, and content only when ticked', () => {
    const html = renderToStaticMarkup(<ExportMenu format="otlp" content={false} running={false} onFormat={noop} onContent={noop} onExport={noop} />);
    expect(html).toContain('JSONL');
    expect(html).toContain('OpenTelemetry (OTLP JSON)');
    expect(html).toMatch(/<input type="radio" name="export-format" checked="" value="otlp"\/>OpenTelemetry/);
    expect(html).toMatch(/<input type="checkbox"\/>Include arguments and results/);
    expect(html).toContain('>Download</button>');
  });

  it('says how many calls the file holds', () => {
    expect(exportSummaryText({ calls: 1, fileName: 'toolgate-calls-x.jsonl' })).toBe('Exported 1 call to toolgate-calls-x.jsonl.');
    const html = renderToStaticMarkup(
      <ExportMenu format="jsonl" content running={false} result={{ calls: 1234, fileName: 'f.jsonl' }} onFormat={noop} onContent={noop} onExport={noop} />,
    );
    expect(html).toContain('Exported 1,234 calls to f.jsonl.');
  });

  it('says when the export was cut and points at the CLI for the rest', () => {
    const text = exportSummaryText({ calls: 10_000, cut: true, fileName: 'f.otlp.json' });
    expect(text).toBe(
      'Exported the newest 10,000 calls to f.otlp.json; more matched than the console exports at once (10,000 calls, less with large results). For all of them run toolgate audit export with the same filters.',
    );
  });

  it('disables Download while an export runs and shows why one failed', () => {
    const html = renderToStaticMarkup(<ExportMenu format="jsonl" content={false} running problem="the gate is not reachable" onFormat={noop} onContent={noop} onExport={noop} />);
    expect(html).toContain('disabled="">Exporting…</button>');
    expect(html).toContain('the gate is not reachable');
  });
});
