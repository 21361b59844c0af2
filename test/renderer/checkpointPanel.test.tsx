import type { ReactElement } from 'react';
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { CheckpointStatus } from '../../shared/explorer';
import { initialConsoleState, type ConsoleState } from '../../renderer/store/consoleState';
import { ConsoleSync } from '../../renderer/store/consoleSync';
import { CheckpointPanel, CheckpointStatusView } from '../../renderer/views/audit/CheckpointPanel';
import { ConsoleContext } from '../../renderer/views/consoleContext';
import { fakeBridge } from './fakeBridge';

// The checkpoint panel, rendered to HTML on the server (no DOM needed), and its bridge request.

function textOf(element: ReactElement): string {
  return renderToStaticMarkup(element)
    .replace(/<[^>]*>/g, ' ')
    .replace(/&#x27;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
    .trim();
}

const KEY = 'toolgate-host-1a2b3c4d+0badc0de+AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcdefgh';

function view(status: CheckpointStatus | undefined, problem?: string): string {
  return textOf(<CheckpointStatusView status={status} problem={problem} copied={false} onCopy={() => undefined} />);
}

describe('the checkpoint panel', () => {
  it('shows the verifier key with a copy button, the folder and the newest checkpoint that verifies', () => {
    const text = view({
      verifierKey: KEY,
      folder: '/media/usb/toolgate',
      latest: { file: '/media/usb/toolgate/abc.checkpoint', size: 4000, rootHash: 'q83vEjRWeJA=', writtenAt: '2026-11-23T12:00:00.000Z', verified: true, detail: 'signed by toolgate-host-1a2b3c4d' },
    });
    expect(text).toContain(`Verifier key ${KEY} Copy`);
    expect(text).toContain('Folder /media/usb/toolgate');
    expect(text).toContain('Verified: 4000 records');
    expect(text).toContain('root q83vEjRWeJA=');
  });

  it('says a checkpoint that does not verify does not, with why', () => {
    const text = view({ verifierKey: KEY, folder: '/f', latest: { file: '/f/a', size: 9, rootHash: 'x', writtenAt: '2026-11-23T12:00:00.000Z', verified: false, detail: 'it was replaced' } });
    expect(text).toContain('Not verified: 9 records');
    expect(text).toContain('it was replaced');
  });

  it('tells how to choose a folder when none was chosen', () => {
    const text = view({ verifierKey: KEY, problem: 'no checkpoint folder chosen, so no signed checkpoints are written: start the gate with --checkpoint-dir DIR' });
    expect(text).toContain('start the gate with --checkpoint-dir DIR');
    expect(text).not.toContain('Folder');
  });

  it('says it is reading until the answer comes, and a failure to ask', () => {
    expect(view(undefined)).toContain('Reading the checkpoint state');
    expect(view(undefined, 'Could not read the checkpoint state: EUNAVAILABLE')).toContain('Could not read the checkpoint state: EUNAVAILABLE');
  });

  it('asks the gate through the console bridge', async () => {
    const fake = fakeBridge({ checkpointStatus: async () => ({ verifierKey: KEY }) });
    const store = createStore<ConsoleState>()(() => initialConsoleState('open'));
    const sync = new ConsoleSync(fake.bridge, store);
    expect(await sync.checkpointStatus()).toEqual({ verifierKey: KEY });
    expect(fake.calls).toEqual([{ method: 'checkpointStatus', params: {} }]);
    expect(textOf(<ConsoleContext.Provider value={{ store, sync }}><CheckpointPanel /></ConsoleContext.Provider>)).toContain('Signed checkpoints');
  });
});
