/**
 * A real gate's audit log with the four kinds of call an export must tell apart: one that
 * completed, one a written rule denied, one whose prompt timed out and one whose tool failed.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { AuditRecord } from '../../shared/audit';
import { summarizeCall } from '../../main/audit/callSummary';
import type { ExportedCall } from '../../main/audit/exportCalls';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { callIdOf, connectMcp, makeTempDirs, nextApproval, readToken, type TempDirs } from '../integration/helpers';
import { WAIT_MS } from '../fixtures/processes';

/** The text each call carried, to check content is exported only when asked. */
export const SECRET_CONTENT = 'confidential-plan-7731';

export interface GatedCalls {
  dirs: TempDirs;
  running: RunningGate;
  client: Client;
  ids: { completed: string; denied: string; timedOut: string; failed: string; edited?: string };
  /** A call with its row (built from its records) and records, as the export is given it. */
  exported(callId: string): ExportedCall;
  records(callId: string): AuditRecord[];
  close(): Promise<void>;
}

/** The content a person's edit gives the `edited` call. */
export const EDITED_CONTENT = 'rewritten-by-a-person';

/**
 * Starts a gate with a deny rule and a short prompt timeout, and makes the four calls over MCP;
 * with `edited`, a fifth: a write a person approved after editing its content. Its prompt must
 * outlive a busy machine's pause between showing and answering, so it is made after a restart over
 * the same state folder, by a gate whose prompts wait WAIT_MS.
 */
export async function gatedCalls(options: { edited?: boolean } = {}): Promise<GatedCalls> {
  const dirs = makeTempDirs();
  const managedPolicyFile = join(dirs.outside, 'managed-policy.json');
  writeFileSync(managedPolicyFile, JSON.stringify({ deny: [{ rule: 'write_file(private/**)', reason: 'private stays by hand' }] }));
  writeFileSync(join(dirs.workspace, 'plan.txt'), `${SECRET_CONTENT}\n`);
  const start = (approvalTimeoutMs: number) => startGate({ home: dirs.home, workspace: dirs.workspace, port: 0, approvalTimeoutMs, poolSize: 1, managedPolicyFile });
  let running = await start(300);
  let client = await connectMcp(running.mcpUrl, readToken(dirs.home));
  const completed = callIdOf(await client.callTool({ name: 'read_file', arguments: { path: 'plan.txt' } }));
  const denied = callIdOf(await client.callTool({ name: 'write_file', arguments: { path: 'private/x.txt', content: SECRET_CONTENT } }));
  const timedOut = callIdOf(await client.callTool({ name: 'write_file', arguments: { path: 'notes.txt', content: SECRET_CONTENT } }));
  const failed = callIdOf(await client.callTool({ name: 'read_file', arguments: { path: `missing-${SECRET_CONTENT}.txt` } }));
  let edited: string | undefined;
  if (options.edited) {
    await client.close();
    await running.close();
    running = await start(WAIT_MS);
    client = await connectMcp(running.mcpUrl, readToken(dirs.home));
    const asked = nextApproval(running.backend);
    const call = client.callTool({ name: 'write_file', arguments: { path: 'edited.txt', content: SECRET_CONTENT } });
    const { approvalId } = await asked;
    await running.backend.handlers.decideApproval({ approvalId, decision: 'approve', edit: { content: `${EDITED_CONTENT}\n` } });
    edited = callIdOf(await call);
  }
  // The gate folds committed records into its call index a moment later; the export (a reader of the file) sees them once folded.
  running.gate.audit.callIndex();
  const records = (callId: string) => running.gate.audit.forCall(callId);
  return {
    dirs,
    running,
    client,
    ids: { completed, denied, timedOut, failed, ...(edited ? { edited } : {}) },
    records,
    exported: (callId) => ({ row: summarizeCall(records(callId))!.row, records: records(callId) }),
    close: async () => {
      await client.close();
      await running.close();
      dirs.remove();
    },
  };
}
