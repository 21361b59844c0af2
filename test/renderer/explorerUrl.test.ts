/**
 * The audit explorer's view lives in the console URL's query: a reload, back/forward and a copied
 * console URL open the same filters, the same open call and the same trail.
 */
import { describe, expect, it } from 'vitest';
import { explorerFromSearch, hasExplorerView, searchWithExplorer, type ExplorerLocation } from '../../renderer/store/explorerUrl';
import { ExplorerFilterSchema } from '../../shared/explorer';

describe('the explorer view in the URL', () => {
  it('comes back the same from the query it writes', () => {
    const view: ExplorerLocation = {
      filter: {
        tool: ['write_file', 'shell_exec'],
        outcome: ['failed', 'rejected'],
        decider: ['person'],
        session: ['mcp-7f3a'],
        tier: ['ELEVATED'],
        from: '2026-11-23T10:00:00.000Z',
        to: '2026-11-23T12:00:00.000Z',
        text: 'notes & "todo" #1',
      },
      open: 'call-42',
    };
    const search = searchWithExplorer('', view);
    expect(search).toContain('tool=write_file&tool=shell_exec');
    expect(search).toContain('q=notes+%26+%22todo%22+%231');
    expect(explorerFromSearch(search)).toEqual(view);
  });

  it("keeps the query keys that are not the explorer's, and drops its own when the view is empty", () => {
    const search = searchWithExplorer('?lang=en&tool=old&q=older', { filter: { tool: ['read_file'] } });
    expect(new URLSearchParams(search).getAll('tool')).toEqual(['read_file']);
    expect(new URLSearchParams(search).get('lang')).toBe('en');
    expect(new URLSearchParams(search).has('q')).toBe(false);
    expect(searchWithExplorer('?tool=x&open=c1', { filter: {} })).toBe('');
  });

  it('carries the call of a Live "Audit trail" link as call=', () => {
    const search = searchWithExplorer('', { filter: {}, trail: 'c-7' });
    expect(search).toBe('?call=c-7');
    expect(explorerFromSearch(search)).toEqual({ filter: {}, trail: 'c-7' });
    expect(hasExplorerView(search)).toBe(true);
    expect(hasExplorerView('?lang=en')).toBe(false);
  });

  it('drops what a filter cannot hold instead of failing: unknown outcomes, empty and repeated values', () => {
    const view = explorerFromSearch('?outcome=completed&outcome=exploded&decider=robot&tool=&tool=a&tool=a&q=');
    expect(view).toEqual({ filter: { outcome: ['completed'], tool: ['a'] } });
  });

  it('keeps only as many values as the gate takes, so a pasted URL never makes a filter the gate refuses', () => {
    const tiers = ['SAFE', 'STANDARD', 'ELEVATED', 'RESTRICTED', 'DANGEROUS', 'EXTRA'].map((tier) => `tier=${tier}`).join('&');
    const view = explorerFromSearch(`?${tiers}&tier=${'T'.repeat(30)}&from=${'9'.repeat(50)}`);
    expect(view.filter).toEqual({ tier: ['SAFE', 'STANDARD', 'ELEVATED', 'RESTRICTED', 'DANGEROUS'] });
    expect(ExplorerFilterSchema.safeParse(view.filter).success).toBe(true);
  });
});
