import { describe, expect, it } from 'vitest';
import { defineTool } from '../../main/registry/defineTool';
import { effectiveTier } from '../../main/policy/sandboxTier';
import { z } from 'zod';
import type { SandboxInfo } from '../../main/hosts/sandbox';

const none: SandboxInfo = { kind: 'none', reason: 'bubblewrap is not installed' };
const bwrap: SandboxInfo = { kind: 'bubblewrap', command: 'bwrap', version: 'bubblewrap 0.8.0' };

function manifest(tier: 'SAFE' | 'STANDARD' | 'RESTRICTED' | 'DANGEROUS', sideEffects: Array<'FsRead' | 'FsWrite' | 'ProcessSpawn' | 'NetRead'>) {
  return defineTool({ name: 't', version: '1.0.0', description: 'd', tier, sideEffects, input: z.object({}), output: z.object({}), execute: () => ({}) })
    .manifest;
}

describe('the tier policy judges a tool by, with and without a sandbox', () => {
  it('raises tools that read or write files or spawn programs by one tier when no sandbox can be had, and says why', () => {
    expect(effectiveTier(manifest('STANDARD', ['FsRead']), none)).toEqual({
      tier: 'ELEVATED',
      raisedBecause: expect.stringContaining('bubblewrap is not installed'),
    });
    expect(effectiveTier(manifest('RESTRICTED', ['ProcessSpawn']), none).tier).toBe('DANGEROUS');
    expect(effectiveTier(manifest('DANGEROUS', ['FsWrite']), none).tier).toBe('DANGEROUS');
  });

  it('leaves pure and network-only tools, and every tool inside bubblewrap, at their declared tier', () => {
    expect(effectiveTier(manifest('SAFE', []), none)).toEqual({ tier: 'SAFE' });
    expect(effectiveTier(manifest('STANDARD', ['NetRead']), none)).toEqual({ tier: 'STANDARD' });
    expect(effectiveTier(manifest('STANDARD', ['FsRead']), bwrap)).toEqual({ tier: 'STANDARD' });
  });
});
