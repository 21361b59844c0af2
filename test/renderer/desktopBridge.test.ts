import { describe, expect, it } from 'vitest';
import { BridgeError, type DesktopBridge } from '../../shared/contract';
import { bridgeFromDesktop } from '../../renderer/bridge/desktopBridge';

function fakeDesktop(reply: unknown, events: Array<(payload: unknown) => void> = []): DesktopBridge {
  return new Proxy({} as DesktopBridge, {
    get: (_target, name: string) =>
      name.startsWith('on')
        ? (listener: (payload: unknown) => void) => {
            events.push(listener);
            return () => events.splice(events.indexOf(listener), 1);
          }
        : async () => reply,
  });
}

describe('the console bridge over the desktop preload', () => {
  it('resolves with the value of an ok reply', async () => {
    const bridge = bridgeFromDesktop(fakeDesktop({ ok: true, value: [] }));
    await expect(bridge.listCalls({})).resolves.toEqual([]);
  });

  it("rejects with a BridgeError that keeps the gate's error code", async () => {
    const bridge = bridgeFromDesktop(fakeDesktop({ ok: false, error: { code: 'ENOTFOUND', message: 'that prompt is no longer waiting' } }));
    const failure = await bridge.decideApproval({ approvalId: 'a', decision: 'approve' }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(BridgeError);
    expect(failure).toMatchObject({ code: 'ENOTFOUND', message: 'that prompt is no longer waiting' });
  });

  it('rejects a reply that is not an envelope with EBRIDGE', async () => {
    const bridge = bridgeFromDesktop(fakeDesktop('nonsense'));
    await expect(bridge.getInfo({})).rejects.toMatchObject({ code: 'EBRIDGE' });
  });

  it('passes events through and unsubscribes', () => {
    const listeners: Array<(payload: unknown) => void> = [];
    const bridge = bridgeFromDesktop(fakeDesktop({ ok: true, value: null }, listeners));
    const seen: unknown[] = [];
    const unsubscribe = bridge.onCallUpdated((payload) => seen.push(payload));
    listeners[0]!({ callId: 'c1' });
    unsubscribe();
    expect(seen).toEqual([{ callId: 'c1' }]);
    expect(listeners).toHaveLength(0);
  });
});
