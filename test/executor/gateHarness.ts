import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { ApprovalRequest } from '../../shared/approval';
import type { AuditKind } from '../../shared/audit';
import { createGate, type Gate, type GateOptions } from '../../main/gate/createGate';
import { WAIT_MS } from '../fixtures/processes';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

/** The misbehaving fixture tools (hang, crash, bad_output, throws, dangerous, …). */
export const HOSTILE_TOOLS = resolve(__dirname, '../fixtures/tools/hostile.mjs');

/** A real gate (real tool processes, real SQLite) in a temp home and workspace. */
export interface Harness {
  gate: Gate;
  home: string;
  /** The gate's workspace (real path). */
  workspace: string;
  close(): Promise<void>;
}

/** Builds a gate with the built-ins and the hostile fixture tools. Needs `npx electron-vite build` first. */
export async function openGate(options: Partial<GateOptions> = {}): Promise<Harness> {
  const root = makeTempFolder();
  const home = join(root, 'home');
  mkdirSync(join(root, 'workspace'));
  const gate = await createGate({
    home,
    workspace: join(root, 'workspace'),
    toolModules: [HOSTILE_TOOLS],
    // Long: a prompt a test answers waits for it however slow the machine; a test of a prompt nobody
    // answers passes a short time of its own.
    approvalTimeoutMs: WAIT_MS,
    poolSize: 1,
    ...options,
  });
  return {
    gate,
    home,
    workspace: gate.workspace,
    close: async () => {
      await gate.close();
      removeTempFolder(root);
    },
  };
}

/** The kinds of the audit records one call left, oldest first. */
export function auditKinds(gate: Gate, callId: string): AuditKind[] {
  return gate.audit.forCall(callId).map((record) => record.kind);
}

/** The kinds of the records a call is stored as, in the chain (each holds one or more of its steps). */
export function storedKinds(gate: Gate, callId: string): AuditKind[] {
  return gate.audit.recordsOfCall(callId).map((record) => record.kind);
}

const TERMINAL: AuditKind[] = ['completed', 'failed', 'rejected'];

/** How many terminal records (completed, failed, rejected) a call has: always exactly one. */
export function terminalCount(gate: Gate, callId: string): number {
  return auditKinds(gate, callId).filter((kind) => TERMINAL.includes(kind)).length;
}

/** The next approval prompt the gate raises. */
export function nextApproval(gate: Gate): Promise<ApprovalRequest> {
  return new Promise((resolvePrompt) => {
    const stop = gate.events.subscribe('approvalRequested', (request) => {
      stop();
      resolvePrompt(request);
    });
  });
}
