import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { RuleCheck } from '../../shared/permissions';
import { CheckpointStatusView } from '../../renderer/views/audit/CheckpointPanel';
import { chainStatusText } from '../../renderer/views/audit/ChainStatus';
import { RuleMatches } from '../../renderer/views/approvals/decide/RuleEditor';

// Counts the console shows next to a noun, rendered for one and for two: one reads "1 call", never "1 calls".

function textOf(element: ReactElement): string {
  return renderToStaticMarkup(element).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
}

function matches(count: number): RuleCheck['matches'] {
  return Array.from({ length: count }, (_, index) => ({ callId: `c${index}`, time: '2026-11-23T12:00:00.000Z', tool: 'shell_exec', arguments: { command: 'git status' } }));
}

function checkpointText(size: number): string {
  const latest = { file: '/f/a.checkpoint', size, rootHash: 'q83vEjRWeJA=', writtenAt: '2026-11-23T12:00:00.000Z', verified: true, detail: 'signed' };
  return textOf(<CheckpointStatusView status={{ verifierKey: 'k', folder: '/f', latest }} problem={undefined} copied={false} onCopy={() => undefined} />);
}

describe('counted nouns in the console', () => {
  it('the rule editor counts one recent call that would also have matched as one call, and two as calls', () => {
    expect(textOf(<RuleMatches matches={matches(1)} />)).toContain('1 recent call would also have matched');
    expect(textOf(<RuleMatches matches={matches(2)} />)).toContain('2 recent calls would also have matched');
    expect(textOf(<RuleMatches matches={[]} />)).toContain('No recent call would also have matched.');
  });

  it('the chain verdict and the checkpoint panel count one record as a record', () => {
    expect(chainStatusText({ running: false, stale: false, error: undefined, report: { ok: true, records: 1 } })).toBe('Chain verified (1 record)');
    expect(chainStatusText({ running: false, stale: false, error: undefined, report: { ok: true, records: 2 } })).toBe('Chain verified (2 records)');
    expect(checkpointText(1)).toContain('Verified: 1 record,');
    expect(checkpointText(2)).toContain('Verified: 2 records,');
  });
});
