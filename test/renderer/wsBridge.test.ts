import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { BridgeError } from '../../shared/contract';
import type { ConnectionState } from '../../renderer/bridge/connectionState';
import { createWsBridge, type WsBridge } from '../../renderer/bridge/wsBridge';
import { FakeWebSocket } from './fakeWebSocket';
import { approval, call, outcome } from './fixtures';

const GATE_INFO = { version: '0.1.0', workspace: '/work/space', approvalTimeoutMs: 60_000, sandbox: { kind: 'bubblewrap' as const } };
const TOKEN = 'c0ffee'.repeat(8);

let open: WsBridge[] = [];
let problems: string[] = [];

function connect(): WsBridge {
  const connection = createWsBridge({
    url: 'ws://127.0.0.1:4000/bridge',
    token: TOKEN,
    WebSocketImpl: FakeWebSocket,
    onProtocolError: (problem) => problems.push(problem),
  });
  open.push(connection);
  return connection;
}

function connectAndOpen(): { connection: WsBridge; socket: FakeWebSocket } {
  const connection = connect();
  const socket = FakeWebSocket.latest();
  socket.serverOpen();
  return { connection, socket };
}

beforeEach(() => {
  FakeWebSocket.reset();
  problems = [];
});

afterEach(() => {
  for (const connection of open) connection.close();
  open = [];
  vi.useRealTimers();
});

describe('createWsBridge', () => {
  it('offers the token and protocol version as subprotocols', () => {
    connect();
    const socket = FakeWebSocket.latest();
    expect(socket.url).toBe('ws://127.0.0.1:4000/bridge');
    expect(socket.protocols).toEqual(['toolgate.v1', `toolgate.token.${TOKEN}`]);
  });

  it('builds every contract method and subscription by name', () => {
    const { bridge } = connect();
    expect(typeof bridge.listCalls).toBe('function');
    expect(typeof bridge.decideApproval).toBe('function');
    expect(typeof bridge.onCallUpdated).toBe('function');
    expect(typeof bridge.onAuditAppended).toBe('function');
  });

  it('correlates replies with requests by id, whatever order they come back in', async () => {
    const { connection, socket } = connectAndOpen();
    const info = connection.bridge.getInfo({});
    const calls = connection.bridge.listCalls({});
    expect(socket.sent.map((m) => m.method)).toEqual(['getInfo', 'listCalls']);
    expect(socket.sent[0]!.id).not.toBe(socket.sent[1]!.id);

    socket.serverReply(1, { ok: true, value: [call('c1')] });
    socket.serverReply(0, { ok: true, value: GATE_INFO });

    await expect(info).resolves.toEqual(GATE_INFO);
    await expect(calls).resolves.toEqual([call('c1')]);
  });

  it('holds requests made during the handshake and sends them once open', async () => {
    const connection = connect();
    const socket = FakeWebSocket.latest();
    const info = connection.bridge.getInfo({});
    expect(socket.sent).toHaveLength(0);
    socket.serverOpen();
    expect(socket.sent.map((m) => m.method)).toEqual(['getInfo']);
    socket.serverReply(0, { ok: true, value: GATE_INFO });
    await expect(info).resolves.toEqual(GATE_INFO);
  });

  it('sends params as given and {} when none', () => {
    const { connection, socket } = connectAndOpen();
    const ignoreClose = () => undefined;
    connection.bridge.decideApproval({ approvalId: 'a1', decision: 'deny', reason: 'no' }).catch(ignoreClose);
    (connection.bridge.verifyAudit as (p?: unknown) => Promise<unknown>)().catch(ignoreClose);
    expect(socket.sent[0]!.params).toEqual({ approvalId: 'a1', decision: 'deny', reason: 'no' });
    expect(socket.sent[1]!.params).toEqual({});
  });

  it('rejects with a BridgeError carrying the code on ok:false', async () => {
    const { connection, socket } = connectAndOpen();
    const decided = connection.bridge.decideApproval({ approvalId: 'a1', decision: 'approve' });
    socket.serverReply(0, { ok: false, error: { code: 'EDENIED', message: 'the prompt already expired' } });
    const error = await decided.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BridgeError);
    expect(error).toMatchObject({ code: 'EDENIED', message: 'the prompt already expired' });
  });

  it('rejects a reply that breaks the contract with EBRIDGE', async () => {
    const { connection, socket } = connectAndOpen();
    const info = connection.bridge.getInfo({});
    socket.serverReply(0, { ok: true, value: { version: 1 } });
    await expect(info).rejects.toMatchObject({ code: 'EBRIDGE' });
  });

  it('fans events out to every listener until each unsubscribes', () => {
    const { connection, socket } = connectAndOpen();
    const first: string[] = [];
    const second: string[] = [];
    const stopFirst = connection.bridge.onCallUpdated((c) => first.push(c.callId));
    connection.bridge.onCallUpdated((c) => second.push(c.callId));
    const resolved: string[] = [];
    connection.bridge.onApprovalResolved((o) => resolved.push(o.approvalId));

    socket.serverSend({ type: 'event', event: 'callUpdated', payload: call('c1') });
    stopFirst();
    socket.serverSend({ type: 'event', event: 'callUpdated', payload: call('c2') });
    socket.serverSend({ type: 'event', event: 'approvalResolved', payload: outcome('a1') });

    expect(first).toEqual(['c1']);
    expect(second).toEqual(['c1', 'c2']);
    expect(resolved).toEqual(['a1']);
  });

  it('dispatches a batch of events in the order the gate sent them; one bad event drops alone', () => {
    const { connection, socket } = connectAndOpen();
    const seen: string[] = [];
    connection.bridge.onCallUpdated((c) => seen.push(`call ${c.callId} ${c.status}`));
    connection.bridge.onApprovalResolved((o) => seen.push(`resolved ${o.approvalId}`));
    socket.serverSend({
      type: 'events',
      events: [
        { event: 'callUpdated', payload: call('c1') },
        { event: 'approvalResolved', payload: outcome('a1') },
        { event: 'approvalRequested', payload: { approvalId: 1 } },
        { event: 'callUpdated', payload: { ...call('c2'), status: 'completed' } },
      ],
    });
    expect(seen).toEqual(['call c1 checking', 'resolved a1', 'call c2 completed']);
    expect(problems).toHaveLength(1);
  });

  it('drops a batch that is not a list of named events', () => {
    const { connection, socket } = connectAndOpen();
    const seen: string[] = [];
    connection.bridge.onCallUpdated((c) => seen.push(c.callId));
    socket.serverSend({ type: 'events', events: { event: 'callUpdated', payload: call('c1') } });
    socket.serverSend({ type: 'events', events: [{ payload: call('c1') }, { event: 'callUpdated', payload: call('c2') }] });
    expect(seen).toEqual([]);
    expect(problems).toHaveLength(2);
  });

  it('drops malformed frames, unknown events and off-contract payloads without throwing', () => {
    const { connection, socket } = connectAndOpen();
    const seen: unknown[] = [];
    connection.bridge.onApprovalRequested((r) => seen.push(r));
    socket.serverSend('not json');
    socket.serverSend({ type: 'event', event: 'somethingElse', payload: {} });
    socket.serverSend({ type: 'event', event: 'approvalRequested', payload: { approvalId: 1 } });
    socket.serverSend({ type: 'reply', id: 999, reply: { ok: true, value: null } });
    socket.serverSend({ type: 'event', event: 'approvalRequested', payload: approval('a1') });
    expect(seen).toEqual([approval('a1')]);
    expect(problems).toHaveLength(4);
  });

  it('keeps delivering to other listeners when one throws', () => {
    const { connection, socket } = connectAndOpen();
    const seen: string[] = [];
    connection.bridge.onCallUpdated(() => {
      throw new Error('boom');
    });
    connection.bridge.onCallUpdated((c) => seen.push(c.callId));
    socket.serverSend({ type: 'event', event: 'callUpdated', payload: call('c1') });
    expect(seen).toEqual(['c1']);
  });

  it('rejects pending requests when the socket closes, and reconnects with growing backoff', async () => {
    vi.useFakeTimers();
    const { connection, socket } = connectAndOpen();
    const states: ConnectionState[] = [];
    connection.onStateChange((s) => states.push(s));
    const pending = connection.bridge.listCalls({});

    socket.serverClose(1006);
    await expect(pending).rejects.toMatchObject({ code: 'EDISCONNECTED' });
    expect(connection.state).toBe('reconnecting');
    await expect(connection.bridge.listCalls({})).rejects.toMatchObject({ code: 'EDISCONNECTED' });

    vi.advanceTimersByTime(250);
    expect(FakeWebSocket.instances).toHaveLength(2);
    FakeWebSocket.latest().serverClose(1006);
    vi.advanceTimersByTime(499);
    expect(FakeWebSocket.instances).toHaveLength(2);
    vi.advanceTimersByTime(1);
    expect(FakeWebSocket.instances).toHaveLength(3);

    FakeWebSocket.latest().serverOpen();
    expect(connection.state).toBe('open');
    expect(states).toEqual(['reconnecting', 'open']);
  });

  it('never waits more than the maximum backoff between attempts', () => {
    vi.useFakeTimers();
    connect();
    for (let attempt = 0; attempt < 8; attempt++) {
      FakeWebSocket.latest().serverClose(1006);
      vi.advanceTimersByTime(5_000);
    }
    expect(FakeWebSocket.instances).toHaveLength(9);
  });

  it('stops for good when the gate refuses the token (close code 4401)', async () => {
    vi.useFakeTimers();
    const { connection, socket } = connectAndOpen();
    const pending = connection.bridge.getInfo({});
    socket.serverClose(4401, 'bad token');
    await expect(pending).rejects.toMatchObject({ code: 'EDISCONNECTED' });
    expect(connection.state).toBe('refused');
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
    await expect(connection.bridge.getInfo({})).rejects.toMatchObject({ code: 'ETOKEN' });
  });

  it('close() rejects pending requests, stops reconnecting, and is idempotent', async () => {
    vi.useFakeTimers();
    const { connection } = connectAndOpen();
    const pending = connection.bridge.listTools({});
    connection.close();
    connection.close();
    await expect(pending).rejects.toMatchObject({ code: 'ECLOSED' });
    expect(connection.state).toBe('closed');
    vi.advanceTimersByTime(60_000);
    expect(FakeWebSocket.instances).toHaveLength(1);
  });

  it('ignores frames from a socket it already replaced', () => {
    vi.useFakeTimers();
    const { connection, socket } = connectAndOpen();
    const seen: string[] = [];
    connection.bridge.onCallUpdated((c) => seen.push(c.callId));
    socket.serverClose(1006);
    vi.advanceTimersByTime(250);
    FakeWebSocket.latest().serverOpen();
    socket.serverSend({ type: 'event', event: 'callUpdated', payload: call('stale') });
    FakeWebSocket.latest().serverSend({ type: 'event', event: 'callUpdated', payload: call('fresh') });
    expect(seen).toEqual(['fresh']);
  });
});
