import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IpcMainInvokeEvent } from 'electron';
import {
  BRIDGE_EVENT_NAMES,
  BRIDGE_METHOD_NAMES,
  type BridgeEventName,
  type BridgeHandlers,
  type BridgeReply,
} from '../../shared/contract';
import type { ConsoleBackend } from '../../main/bridge/consoleBackend';

vi.mock('electron', () => ({}));

const { forwardBridgeEvents, registerBridgeIpc } = await import('../../main/desktop/ipcBridge');

type Handler = (event: IpcMainInvokeEvent, request: unknown) => Promise<BridgeReply<unknown>>;

const INFO = { version: '0.1.0', workspace: '/work/space', approvalTimeoutMs: 60_000, sandbox: { kind: 'none' as const } };

/** A backend whose handlers record their calls and whose events are fired by hand. */
function fakeBackend() {
  const listeners = new Map<BridgeEventName, Set<(payload: unknown) => void>>();
  const handlers = Object.fromEntries(
    BRIDGE_METHOD_NAMES.map((method) => [method, vi.fn(async () => (method === 'getInfo' ? INFO : []))]),
  ) as unknown as BridgeHandlers & Record<string, ReturnType<typeof vi.fn>>;
  const backend: ConsoleBackend = {
    handlers,
    subscribe(event, listener) {
      const set = listeners.get(event) ?? new Set();
      listeners.set(event, set);
      set.add(listener as (payload: unknown) => void);
      return () => set.delete(listener as (payload: unknown) => void);
    },
  };
  const emit = (event: BridgeEventName, payload: unknown) => listeners.get(event)?.forEach((l) => l(payload));
  const listenerCount = () => [...listeners.values()].reduce((sum, set) => sum + set.size, 0);
  return { backend, handlers, emit, listenerCount };
}

function fakeIpcMain() {
  const handlers = new Map<string, Handler>();
  return {
    handlers,
    handle: vi.fn((channel: string, handler: Handler) => {
      if (handlers.has(channel)) throw new Error(`second handler for ${channel}`);
      handlers.set(channel, handler);
    }),
    removeHandler: vi.fn((channel: string) => {
      handlers.delete(channel);
    }),
  };
}

const event = {} as IpcMainInvokeEvent;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('registerBridgeIpc', () => {
  it('registers one handler per bridge method, on toolgate:<method>', () => {
    const ipc = fakeIpcMain();
    registerBridgeIpc(ipc, fakeBackend().backend, () => true);
    expect([...ipc.handlers.keys()].sort()).toEqual(BRIDGE_METHOD_NAMES.map((m) => `toolgate:${m}`).sort());
  });

  it('answers a trusted sender through dispatch', async () => {
    const ipc = fakeIpcMain();
    const { backend, handlers } = fakeBackend();
    registerBridgeIpc(ipc, backend, () => true);
    await expect(ipc.handlers.get('toolgate:getInfo')!(event, {})).resolves.toEqual({ ok: true, value: INFO });
    expect(handlers.getInfo).toHaveBeenCalledTimes(1);
  });

  it('refuses an untrusted sender with EPERMISSION and never reaches the gate', async () => {
    const ipc = fakeIpcMain();
    const { backend, handlers } = fakeBackend();
    const isTrusted = vi.fn(() => false);
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    registerBridgeIpc(ipc, backend, isTrusted);
    for (const method of BRIDGE_METHOD_NAMES) {
      const reply = await ipc.handlers.get(`toolgate:${method}`)!(event, {});
      expect(reply).toMatchObject({ ok: false, error: { code: 'EPERMISSION' } });
      expect(handlers[method]).not.toHaveBeenCalled();
    }
    expect(isTrusted).toHaveBeenCalledTimes(BRIDGE_METHOD_NAMES.length);
    expect(isTrusted).toHaveBeenCalledWith(event);
  });

  it('treats a sender check that throws as untrusted', async () => {
    const ipc = fakeIpcMain();
    const { backend, handlers } = fakeBackend();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    registerBridgeIpc(ipc, backend, () => {
      throw new Error('frame disposed');
    });
    await expect(ipc.handlers.get('toolgate:getInfo')!(event, {})).resolves.toMatchObject({
      ok: false,
      error: { code: 'EPERMISSION' },
    });
    expect(handlers.getInfo).not.toHaveBeenCalled();
  });

  it('rejects an invalid request with EVALIDATION before the handler runs', async () => {
    const ipc = fakeIpcMain();
    const { backend, handlers } = fakeBackend();
    registerBridgeIpc(ipc, backend, () => true);
    const reply = await ipc.handlers.get('toolgate:decideApproval')!(event, { approvalId: '', decision: 'maybe' });
    expect(reply).toMatchObject({ ok: false, error: { code: 'EVALIDATION' } });
    const extra = await ipc.handlers.get('toolgate:getInfo')!(event, { path: '/etc/passwd' });
    expect(extra).toMatchObject({ ok: false, error: { code: 'EVALIDATION' } });
    expect(handlers.decideApproval).not.toHaveBeenCalled();
    expect(handlers.getInfo).not.toHaveBeenCalled();
  });

  it('dispose removes every handler, once', () => {
    const ipc = fakeIpcMain();
    const dispose = registerBridgeIpc(ipc, fakeBackend().backend, () => true);
    dispose();
    dispose();
    expect(ipc.handlers.size).toBe(0);
    expect(ipc.removeHandler).toHaveBeenCalledTimes(BRIDGE_METHOD_NAMES.length);
    // Handlers can be registered again (a new window) without "second handler" errors.
    expect(() => registerBridgeIpc(ipc, fakeBackend().backend, () => true)).not.toThrow();
  });
});

describe('forwardBridgeEvents', () => {
  it('forwards every event as { event, payload }', () => {
    const { backend, emit } = fakeBackend();
    const send = vi.fn();
    forwardBridgeEvents(backend, send);
    BRIDGE_EVENT_NAMES.forEach((name, index) => emit(name, { index }));
    expect(send.mock.calls.map(([message]) => message)).toEqual(
      BRIDGE_EVENT_NAMES.map((name, index) => ({ event: name, payload: { index } })),
    );
  });

  it('a failing send does not throw into the gate', () => {
    const { backend, emit } = fakeBackend();
    vi.spyOn(console, 'warn').mockImplementation(() => {});
    forwardBridgeEvents(backend, () => {
      throw new Error('webContents destroyed');
    });
    expect(() => emit('callUpdated', {})).not.toThrow();
  });

  it('dispose unsubscribes every event, once', () => {
    const { backend, emit, listenerCount } = fakeBackend();
    const send = vi.fn();
    const dispose = forwardBridgeEvents(backend, send);
    expect(listenerCount()).toBe(BRIDGE_EVENT_NAMES.length);
    dispose();
    dispose();
    expect(listenerCount()).toBe(0);
    emit('auditAppended', {});
    expect(send).not.toHaveBeenCalled();
  });
});
