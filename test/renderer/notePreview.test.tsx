import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { PreviewPanel } from '../../renderer/views/approvals/PreviewPanel';

describe("a memory note's prompt", () => {
  it('shows the note to keep with its tags, hidden characters made visible', () => {
    const html = renderToStaticMarkup(<PreviewPanel preview={{ kind: 'note', action: 'store', text: 'deploy with $ENV.TOKEN\u202e', tags: ['deploy', 'prod'] }} />);
    expect(html).toContain('Note to keep');
    expect(html).toContain('deploy with $ENV.TOKEN');
    expect(html).not.toContain('\u202e');
    expect(html).toContain('tags: deploy, prod');
  });

  it('shows which note a delete removes and who wrote it', () => {
    const html = renderToStaticMarkup(<PreviewPanel preview={{ kind: 'note', action: 'delete', id: 7, text: 'old note', tags: [], writtenBy: 'claude-code 2.0' }} />);
    expect(html).toContain('Note 7 to delete');
    expect(html).toContain('written by claude-code 2.0');
    expect(html).not.toContain('note-tags');
  });
});
