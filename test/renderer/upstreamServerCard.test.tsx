import { describe, expect, it } from 'vitest';
import type { UpstreamServerView } from '../../shared/upstream';
import type { UpstreamReviewState } from '../../renderer/store/upstreamReview';
import { UpstreamServerCard, type UpstreamServerActions } from '../../renderer/views/tools/UpstreamServerCard';
import { markupText } from './markupText';

// An upstream server's card in the Tools view, rendered to HTML on the server: the MCP revision it speaks.

const state: UpstreamReviewState = { overview: undefined, loadProblem: undefined, classes: {}, capabilityText: {}, confirmed: {}, sandboxes: {}, busy: {}, problems: {} };
const actions = {} as UpstreamServerActions;

function server(fields: Partial<UpstreamServerView>): UpstreamServerView {
  return { name: 'remote', transport: 'http', launch: 'http://127.0.0.1:9/mcp', launchHash: 'h', launchApproved: true, sandboxed: false, status: 'ready', restarts: 0, tools: [], refused: [], ...fields };
}

describe("an upstream server's card", () => {
  it('says which MCP revision the server speaks once it has connected', () => {
    expect(markupText(<UpstreamServerCard server={server({ protocol: '2026-07-28' })} state={state} actions={actions} />)).toContain('MCP 2026-07-28');
    expect(markupText(<UpstreamServerCard server={server({ protocol: '2025-11-25' })} state={state} actions={actions} />)).toContain('MCP 2025-11-25');
  });

  it('says none before it has', () => {
    expect(markupText(<UpstreamServerCard server={server({ status: 'starting' })} state={state} actions={actions} />)).not.toContain('MCP ');
  });
});
