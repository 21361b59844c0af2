import { join } from 'node:path';
import { writeSyntheticLog } from '../../bench/syntheticAudit';
import { AuditStore } from '../../main/audit/auditStore';
import { openDatabase } from '../../main/audit/sqlite';
import type { AuditRecord } from '../../shared/audit';
import { makeTempFolder } from '../fixtures/tempFolder';

/** The end of every test log: fixed, so each test sees the same calls. */
export const LOG_END = new Date('2026-11-20T12:00:00Z');

/** A state folder holding a synthetic log of `calls` calls (seeded), and the paths its store opens. */
export async function syntheticHome(calls: number, seed = 3): Promise<{ root: string; home: string; paths: { path: string; headPath: string } }> {
  const root = makeTempFolder();
  const home = join(root, 'home');
  await writeSyntheticLog({ home, calls, seed, end: LOG_END });
  return { root, home, paths: { path: join(home, 'audit.db'), headPath: join(home, 'audit.head') } };
}

/** Appends one whole call (invoked → policy → started → completed) with these arguments and output. */
export function appendCall(store: AuditStore, callId: string, tool: string, args: unknown, output: unknown, agentSession = 'session-test'): AuditRecord[] {
  return [
    store.append({ callId, kind: 'invoked', payload: { tool, source: 'mcp', agentSession, arguments: args } }),
    store.append({ callId, kind: 'policy', payload: { decision: 'allow', rule: 'tier:SAFE→allow', reason: `${tool} is SAFE and runs without asking`, tier: 'SAFE' } }),
    store.append({ callId, kind: 'started', payload: { tool, version: '1.0.0' } }),
    store.append({ callId, kind: 'completed', payload: { responseHash: 'h', output } }),
  ];
}

/** Runs SQL on the database behind the store's back (dropping or rewinding the call index, as a person might). */
export function onDatabase(path: string, sql: string): void {
  const db = openDatabase(path);
  try {
    db.exec(sql);
  } finally {
    db.close();
  }
}
