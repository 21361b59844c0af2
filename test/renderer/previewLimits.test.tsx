import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PreviewPanel } from '../../renderer/views/approvals/PreviewPanel';

function diffPreview(before: string, after: string) {
  return { kind: 'diff' as const, path: 'big.txt', before, after, unified: '', exists: before !== '' };
}

describe('a diff too large to draw at once', () => {
  it('is summarised with "Show anyway" past 10,000 lines', () => {
    const lines = (count: number) => Array.from({ length: count }, (_, at) => `line ${at}`).join('\n');
    expect(renderToStaticMarkup(<PreviewPanel preview={diffPreview('', lines(10_001))} />)).toContain('show-large-diff');
    expect(renderToStaticMarkup(<PreviewPanel preview={diffPreview('', lines(10_000))} />)).not.toContain('show-large-diff');
  });

  it('is summarised past 1 MB of text even on one line, with its size', () => {
    const html = renderToStaticMarkup(<PreviewPanel preview={diffPreview('x', 'y'.repeat(2 * 1024 * 1024))} />);
    expect(html).toContain('show-large-diff');
    expect(html).toContain('2.0 MB of text');
    expect(html).not.toContain('diff-editor');
  });
});
