import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { ConsoleContext } from '../../renderer/views/consoleContext';
import { DecisionBar } from '../../renderer/views/approvals/decide/DecisionBar';
import { fakeBridge } from './fakeBridge';
import { approval } from './fixtures';

// "Approve for this session" on a prompt's decision bar: offered for an agent session the gate
// issued, held back for a sessionless (MCP 2026-07-28) agent, whose key is only a declared name.

function bar(request: ApprovalRequest): string {
  const store = createConsoleStore('open');
  const sync = new ConsoleSync(fakeBridge({}).bridge, store);
  const element: ReactElement = (
    <ConsoleContext.Provider value={{ store, sync }}>
      <DecisionBar request={request} reason="" menu={undefined} setMenu={() => {}} scope={undefined} setScope={() => {}} />
    </ConsoleContext.Provider>
  );
  return renderToStaticMarkup(element);
}

const SESSION_BUTTON = /<button[^>]*data-key="session"[^>]*>Approve for this session<\/button>/;

describe('the session answer of a prompt', () => {
  it('is offered for a session the gate issued', () => {
    const button = SESSION_BUTTON.exec(bar(approval('a1', { agentSession: '8c1f0e9a-1111-2222-3333-444455556666' })))![0];
    expect(button).not.toContain('disabled');
  });

  it('is held back, saying why, for a sessionless agent known only by its declared name', () => {
    const button = SESSION_BUTTON.exec(bar(approval('a2', { agentSession: `declared-${'0'.repeat(32)}` })))![0];
    expect(button).toContain('disabled=""');
    expect(button).toContain('known only by the name it declares');
  });
});
