import { EventEmitter } from 'node:events';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BRIDGE_EVENT_NAMES, BRIDGE_METHOD_NAMES, subscriptionName } from '../../shared/contract';

const electron = vi.hoisted(() => ({
  contextBridge: { exposeInMainWorld: vi.fn() },
  ipcRenderer: { invoke: vi.fn(), on: vi.fn(), removeListener: vi.fn() },
}));
vi.mock('electron', () => electron);

const { createPreloadBridge } = await import('../../preload/index');

/** An ipcRenderer double: invoke is scripted, events go through a real emitter. */
function fakeIpcRenderer(reply: (channel: string, request: unknown) => unknown = () => ({ ok: true, value: null })) {
  const emitter = new EventEmitter();
  return {
    emitter,
    invoke: vi.fn(async (channel: string, request: unknown) => reply(channel, request)),
    on: vi.fn((channel: string, listener: (...args: unknown[]) => void) => {
      emitter.on(channel, listener);
      return undefined as never;
    }),
    removeListener: vi.fn((channel: string, listener: (...args: unknown[]) => void) => {
      emitter.removeListener(channel, listener);
      return undefined as never;
    }),
    push(message: unknown) {
      emitter.emit('toolgate:event', { sender: null }, message);
    },
  };
}

describe('preload bridge', () => {
  let ipc: ReturnType<typeof fakeIpcRenderer>;
  beforeEach(() => {
    ipc = fakeIpcRenderer((channel, request) => ({ ok: true, value: { channel, request } }));
  });

  it('exposes itself as window.toolgate at load, with exactly the named methods and subscriptions', () => {
    expect(electron.contextBridge.exposeInMainWorld).toHaveBeenCalledTimes(1);
    const [key, api] = electron.contextBridge.exposeInMainWorld.mock.calls[0]!;
    expect(key).toBe('toolgate');
    const expected = [...BRIDGE_METHOD_NAMES, ...BRIDGE_EVENT_NAMES.map(subscriptionName)].sort();
    expect(Object.keys(api as object).sort()).toEqual(expected);
    for (const value of Object.values(api as object)) expect(typeof value).toBe('function');
    expect(api).not.toHaveProperty('invoke');
    expect(api).not.toHaveProperty('ipcRenderer');
    expect(api).not.toHaveProperty('send');
  });

  it('calls each method on its own channel with the request and returns the reply', async () => {
    const bridge = createPreloadBridge(ipc) as unknown as Record<string, (request: unknown) => Promise<unknown>>;
    for (const method of BRIDGE_METHOD_NAMES) {
      const request = { probe: method };
      await expect(bridge[method]!(request)).resolves.toEqual({ ok: true, value: { channel: `toolgate:${method}`, request } });
    }
    expect(ipc.invoke).toHaveBeenCalledTimes(BRIDGE_METHOD_NAMES.length);
    expect(ipc.invoke.mock.calls.map(([channel]) => channel)).toEqual(BRIDGE_METHOD_NAMES.map((m) => `toolgate:${m}`));
  });

  it('hands an error reply to the page whole, so the code from main survives contextBridge', async () => {
    ipc = fakeIpcRenderer(() => ({ ok: false, error: { code: 'EVALIDATION', message: 'listAudit: limit: too small' } }));
    const bridge = createPreloadBridge(ipc);
    await expect(bridge.listAudit({ limit: 0 })).resolves.toEqual({
      ok: false,
      error: { code: 'EVALIDATION', message: 'listAudit: limit: too small' },
    });
  });

  it('turns a malformed reply into an EBRIDGE failure instead of passing it on', async () => {
    ipc = fakeIpcRenderer(() => ({ value: 'no ok flag' }));
    await expect(createPreloadBridge(ipc).getInfo({})).resolves.toMatchObject({ ok: false, error: { code: 'EBRIDGE' } });
  });

  it('delivers only its own event to a subscription', () => {
    const bridge = createPreloadBridge(ipc);
    const calls: unknown[] = [];
    const approvals: unknown[] = [];
    bridge.onCallUpdated((payload) => calls.push(payload));
    bridge.onApprovalRequested((payload) => approvals.push(payload));
    ipc.push({ event: 'callUpdated', payload: { n: 1 } });
    ipc.push({ event: 'approvalRequested', payload: { n: 2 } });
    ipc.push({ event: 'nonsense', payload: { n: 3 } });
    ipc.push('not an object');
    expect(calls).toEqual([{ n: 1 }]);
    expect(approvals).toEqual([{ n: 2 }]);
  });

  it('unsubscribe removes exactly its own listener, even for the same listener function', () => {
    const bridge = createPreloadBridge(ipc);
    const seen: string[] = [];
    const first = bridge.onAuditAppended(() => seen.push('first'));
    bridge.onAuditAppended(() => seen.push('second'));
    const shared = () => seen.push('shared');
    const sharedA = bridge.onCallUpdated(shared);
    bridge.onCallUpdated(shared);

    first();
    sharedA();
    expect(ipc.removeListener).toHaveBeenCalledTimes(2);
    ipc.push({ event: 'auditAppended', payload: {} });
    ipc.push({ event: 'callUpdated', payload: {} });
    expect(seen).toEqual(['second', 'shared']);
    expect(ipc.emitter.listenerCount('toolgate:event')).toBe(2);
  });
});
