import { describe, expect, it } from 'vitest';
import { suggestedClass, unreviewedTier } from '../../main/upstream/suggestedClass';
import type { UpstreamToolDefinition } from '../../shared/upstream';

function tool(annotations?: UpstreamToolDefinition['annotations']): UpstreamToolDefinition {
  return { name: 'tool', inputSchema: { type: 'object' }, annotations };
}

describe('suggestedClass', () => {
  it('follows the annotations a server sent', () => {
    expect(suggestedClass(tool({ readOnlyHint: true, openWorldHint: false }))).toEqual({ tier: 'STANDARD', sideEffects: ['FsRead'] });
    expect(suggestedClass(tool({ readOnlyHint: true, openWorldHint: true }))).toEqual({ tier: 'STANDARD', sideEffects: ['NetRead'] });
    expect(suggestedClass(tool({ readOnlyHint: false, destructiveHint: false, openWorldHint: false }))).toEqual({ tier: 'ELEVATED', sideEffects: ['FsWrite'] });
    expect(suggestedClass(tool({ readOnlyHint: false, destructiveHint: false, openWorldHint: true }))).toEqual({ tier: 'ELEVATED', sideEffects: ['FsWrite', 'NetWrite'] });
    expect(suggestedClass(tool({ readOnlyHint: false, destructiveHint: true, openWorldHint: false }))).toEqual({ tier: 'RESTRICTED', sideEffects: ['FsWrite'] });
  });

  it("takes the MCP spec's defaults for what a server did not say: the worst case", () => {
    expect(suggestedClass(tool())).toEqual({ tier: 'RESTRICTED', sideEffects: ['FsWrite', 'NetWrite'] });
    expect(suggestedClass(tool({ title: 'Only a title' }))).toEqual({ tier: 'RESTRICTED', sideEffects: ['FsWrite', 'NetWrite'] });
    // readOnlyHint alone: openWorldHint defaults to true.
    expect(suggestedClass(tool({ readOnlyHint: true }))).toEqual({ tier: 'STANDARD', sideEffects: ['NetRead'] });
    // Not destructive said, read-only not said: it still writes.
    expect(suggestedClass(tool({ destructiveHint: false }))).toEqual({ tier: 'ELEVATED', sideEffects: ['FsWrite', 'NetWrite'] });
  });

  it('ignores destructiveHint on a read-only tool, as the spec says it means nothing there', () => {
    expect(suggestedClass(tool({ readOnlyHint: true, destructiveHint: true, openWorldHint: false }))).toEqual({ tier: 'STANDARD', sideEffects: ['FsRead'] });
  });
});

describe('unreviewedTier', () => {
  it('never judges an unreviewed call below ELEVATED, whatever the annotations claim', () => {
    expect(unreviewedTier(suggestedClass(tool({ readOnlyHint: true, openWorldHint: false })))).toBe('ELEVATED');
    expect(unreviewedTier({ tier: 'SAFE', sideEffects: [] })).toBe('ELEVATED');
    expect(unreviewedTier(suggestedClass(tool()))).toBe('RESTRICTED');
    expect(unreviewedTier({ tier: 'DANGEROUS', sideEffects: ['ProcessSpawn'] })).toBe('DANGEROUS');
  });
});
