/**
 * A group commit that fails under a real gate: the call whose records it held gets ERUNTIME saying
 * the audit log could not be written and what to do, its output is neither recorded nor returned
 * (a tool that writes is not even handed the call), and the gate answers the next call as usual once
 * the log can be written again.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../main/audit/sqlite';
import { openGate, type Harness } from '../executor/gateHarness';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('a gate whose audit commit fails', () => {
  it('withholds the call\'s result and answers ERUNTIME, then serves the next call once the log takes records again', async () => {
    harness = await openGate();
    const { gate } = harness;
    expect((await gate.executor.call({ tool: 'echo', arguments: { text: 'before' } })).ok).toBe(true);

    // The log refuses records holding a `started` step, as a full disk would refuse the commit holding one.
    const db = openDatabase(join(harness.home, 'audit.db'));
    db.exec("CREATE TRIGGER refuse_started BEFORE INSERT ON audit WHEN NEW.payload LIKE '%\"kind\":\"started\"%' BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END");
    let refused;
    try {
      refused = await gate.executor.call({ tool: 'echo', arguments: { text: 'refused' } });
    } finally {
      db.exec('DROP TRIGGER refuse_started');
      db.close();
    }
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatchObject({ code: 'ERUNTIME', message: expect.stringMatching(/were not written to \S+audit\.db \(.*disk full \(test\).*\); they are not in the log\. Make room on its disk/) });
    // echo only reads, so it ran while its records were committed; its output reached neither the agent nor the log, only the failure that says why.
    const kinds = gate.audit.forCall(refused.meta.callId).map((record) => record.kind);
    expect(kinds).not.toContain('started');
    expect(kinds).not.toContain('completed');

    const after = await gate.executor.call({ tool: 'echo', arguments: { text: 'after' } });
    expect(after.ok).toBe(true);
    expect(gate.audit.forCall(after.meta.callId).map((record) => record.kind)).toContain('completed');
    expect(gate.audit.verify()).toMatchObject({ ok: true });
  });

  it('does not hand a tool that writes its call until its first records are committed: the file is never written', async () => {
    harness = await openGate({ policyMode: 'permissive' });
    const { gate } = harness;
    const db = openDatabase(join(harness.home, 'audit.db'));
    db.exec("CREATE TRIGGER refuse_started BEFORE INSERT ON audit WHEN NEW.payload LIKE '%\"kind\":\"started\"%' BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END");
    let refused;
    try {
      refused = await gate.executor.call({ tool: 'write_file', arguments: { path: 'never.txt', content: 'x' } });
    } finally {
      db.exec('DROP TRIGGER refuse_started');
      db.close();
    }
    expect(refused.error).toMatchObject({ code: 'ERUNTIME', message: expect.stringMatching(/disk full \(test\)/) });
    expect(existsSync(join(harness.workspace, 'never.txt'))).toBe(false);
    expect(gate.audit.verify()).toMatchObject({ ok: true });
  });

  it('does not hand a tool that reaches the network its call until its first records are committed: no request leaves', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests++;
      response.end('ok');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      harness = await openGate({ toolModules: [resolve(__dirname, '../fixtures/tools/hostileProcess.mjs')] });
      const { gate } = harness;
      // The same GET with the log writable reaches the server: the refusal below is the commit's doing.
      expect((await gate.executor.call({ tool: 'fetch_online', arguments: { url } })).ok).toBe(true);
      expect(requests).toBe(1);
      const db = openDatabase(join(harness.home, 'audit.db'));
      db.exec("CREATE TRIGGER refuse_started BEFORE INSERT ON audit WHEN NEW.payload LIKE '%\"kind\":\"started\"%' BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END");
      let refused;
      try {
        refused = await gate.executor.call({ tool: 'fetch_online', arguments: { url } });
      } finally {
        db.exec('DROP TRIGGER refuse_started');
        db.close();
      }
      expect(refused.error).toMatchObject({ code: 'ERUNTIME', message: expect.stringMatching(/disk full \(test\)/) });
      expect(requests).toBe(1);
    } finally {
      server.close();
    }
  });

  it('without a sandbox takes no tool\'s word that it only reads: one declaring no effects still waits, and sends nothing', async () => {
    let requests = 0;
    const server = createServer((_request, response) => {
      requests++;
      response.end('ok');
    });
    await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      harness = await openGate({ sandbox: 'off', toolModules: [resolve(__dirname, '../fixtures/tools/hostileProcess.mjs')] });
      const db = openDatabase(join(harness.home, 'audit.db'));
      db.exec("CREATE TRIGGER refuse_started BEFORE INSERT ON audit WHEN NEW.payload LIKE '%\"kind\":\"started\"%' BEGIN SELECT RAISE(ABORT, 'disk full (test)'); END");
      let refused;
      try {
        // fetch_offline declares no side effects, yet GETs its URL: only a sandbox would have kept it off the network.
        refused = await harness.gate.executor.call({ tool: 'fetch_offline', arguments: { url } });
      } finally {
        db.exec('DROP TRIGGER refuse_started');
        db.close();
      }
      expect(refused.error).toMatchObject({ code: 'ERUNTIME' });
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });
});
