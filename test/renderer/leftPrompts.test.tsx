import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from 'zustand';
import type { BridgeHandlers } from '../../shared/contract';
import type { ConsoleState } from '../../renderer/store/consoleState';
import { createConsoleStore } from '../../renderer/store/consoleStore';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { ConsoleContext } from '../../renderer/views/consoleContext';
import { LeftPrompts } from '../../renderer/views/approvals/LeftPrompts';
import { fakeBridge } from './fakeBridge';
import { approval, outcome } from './fixtures';
import { markupText } from './markupText';

const LEFT = 'the agent left: its connection to the gate closed before the answer';

const syncs: ConsoleSync[] = [];
afterEach(() => {
  for (const sync of syncs.splice(0)) sync.stop();
});

/** A console over a fake gate holding these prompts, its snapshots loaded. */
async function consoleWith(handlers: Partial<BridgeHandlers>) {
  const fake = fakeBridge({ listApprovals: async () => [], listCalls: async () => [], listTools: async () => [], listAudit: async () => [], ...handlers });
  const store = createConsoleStore('open');
  const sync = new ConsoleSync(fake.bridge, store);
  syncs.push(sync);
  sync.start();
  await sync.refreshSnapshots();
  // Rendered on the server, a store shows its initial state: the view reads one that starts where the console is now.
  const view = () => markupText(<ConsoleContext.Provider value={{ store: createStore<ConsoleState>()(() => store.getState()), sync }}><LeftPrompts /></ConsoleContext.Provider>);
  return { fake, store, sync, view };
}

describe('a prompt whose agent left', () => {
  it('its card goes, and the Approvals view says which call was withdrawn and that the agent left', async () => {
    const { fake, store, view } = await consoleWith({ listApprovals: async () => [approval('a1', { tool: 'write_file' }), approval('a2', { tool: 'shell_exec' })] });
    expect(view()).toBe('');
    fake.emit('approvalResolved', { ...outcome('a1', 'withdrawn'), reason: LEFT });
    expect(store.getState().approvals.map((request) => request.approvalId)).toEqual(['a2']);
    expect(view()).toContain(`write_file was withdrawn, ${LEFT}. The call did not run and can no longer be approved.`);
  });

  it('a prompt the agent cancelled, a person answered or nobody answered in time is not said to have been left', async () => {
    const { fake, store } = await consoleWith({ listApprovals: async () => ['a1', 'a2', 'a3', 'a4'].map((id) => approval(id)) });
    fake.emit('approvalResolved', { ...outcome('a1', 'withdrawn'), reason: 'the agent cancelled the call' });
    fake.emit('approvalResolved', outcome('a2', 'denied'));
    fake.emit('approvalResolved', outcome('a3', 'expired'));
    expect(store.getState().approvals.map((request) => request.approvalId)).toEqual(['a4']);
    expect(store.getState().leftPrompts).toEqual([]);
  });

  it('the notes go when the person dismisses them', async () => {
    const { fake, store, sync } = await consoleWith({ listApprovals: async () => [approval('a1')] });
    fake.emit('approvalResolved', { ...outcome('a1', 'withdrawn'), reason: LEFT });
    expect(store.getState().leftPrompts).toHaveLength(1);
    sync.dismissLeftPrompts();
    expect(store.getState().leftPrompts).toEqual([]);
  });
});
