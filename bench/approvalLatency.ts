// Approval → result for a small write_file: a real gate (createGate, temp home and workspace) whose
// tier policy asks a person for write_file; the bench approves each prompt through the console's own
// handler (backend.handlers.decideApproval, what the Approve button's bridge call reaches) and times
// from that call to the executor's result: for the first write of a gate just started (what a new
// user meets: no process of the write profile exists yet), and for writes after it. Baseline in the same run: the same write on a second gate
// that allows write_file by a rule, timed from the call to its result: what running the write costs
// with nobody asked, so the difference is what the approval path adds.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../main/gate/createGate';
import { percentile, type BenchSection } from './benchResult';

/** The promise: from the click on Approve to the agent's result. */
const APPROVAL_TO_RESULT_LIMIT_MS = 100;
/** How long the prompt is shown before Approve: a person reading a one-line diff, quickly. */
const READING_MS = 500;

async function makeGate(root: string, name: string, policyRules?: string[]): Promise<Gate> {
  const workspace = join(root, `${name}-workspace`);
  rmSync(workspace, { recursive: true, force: true });
  rmSync(join(root, `${name}-home`), { recursive: true, force: true });
  mkdirSync(workspace);
  return createGate({ home: join(root, `${name}-home`), workspace, ...(policyRules ? { policyRules } : {}) });
}

/** The steps a call went through after Approve, with when each began (ms after Approve). */
type StepTimes = Map<string, number>;

/** One write asked for, shown for READING_MS, approved; returns approve → result and the steps after Approve. */
async function approvedWrite(gate: Gate, i: number): Promise<{ ms: number; steps: StepTimes }> {
  const prompted = new Promise<string>((resolve) => {
    const stop = gate.events.subscribe('approvalRequested', (request) => {
      stop();
      resolve(request.approvalId);
    });
  });
  const result = gate.executor.call({ tool: 'write_file', arguments: { path: `approved-${i}.txt`, content: `line ${i}\n` }, source: 'test' });
  const approvalId = await prompted;
  await new Promise((resolve) => setTimeout(resolve, READING_MS));
  const steps: StepTimes = new Map();
  let approvedAt = 0;
  const stopSteps = gate.events.subscribe('callUpdated', (snapshot) => {
    const key = `${snapshot.step}/${snapshot.status}`;
    if (approvedAt > 0 && !steps.has(key)) steps.set(key, performance.now() - approvedAt);
  });
  approvedAt = performance.now();
  await gate.backend.handlers.decideApproval({ approvalId, decision: 'approve' });
  const answer = await result;
  const ms = performance.now() - approvedAt;
  stopSteps();
  if (!answer.ok) throw new Error(`the approved write failed: ${JSON.stringify(answer.error)}`);
  return { ms, steps };
}

async function allowedWrite(gate: Gate, i: number): Promise<number> {
  const started = performance.now();
  const answer = await gate.executor.call({ tool: 'write_file', arguments: { path: `allowed-${i}.txt`, content: `line ${i}\n` }, source: 'test' });
  if (!answer.ok) throw new Error(`the allowed write failed: ${JSON.stringify(answer.error)}`);
  return performance.now() - started;
}

/** The first write of `count` gates, each started for it: Approve → result. */
async function firstWrites(root: string, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const gate = await makeGate(root, 'first');
    try {
      samples.push((await approvedWrite(gate, 0)).ms);
    } finally {
      await gate.close();
    }
  }
  return samples;
}

/** Times the first write of fresh gates, then `calls` approved writes against as many allowed ones, alternating one by one. */
export async function measureApprovalLatency(calls: number, firstCalls: number): Promise<BenchSection> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-approval-'));
  const first = await firstWrites(root, firstCalls);
  const asking = await makeGate(root, 'asking');
  const allowing = await makeGate(root, 'allowing', ['write_file']);
  try {
    // One unmeasured round each: the tools' modules are loaded, the audit files exist.
    await approvedWrite(asking, -1);
    await allowedWrite(allowing, -1);
    const approved: number[] = [];
    const allowed: number[] = [];
    const stepSamples = new Map<string, number[]>();
    for (let i = 0; i < calls; i++) {
      const { ms, steps } = await approvedWrite(asking, i);
      approved.push(ms);
      for (const [step, at] of steps) stepSamples.set(step, [...(stepSamples.get(step) ?? []), at]);
      allowed.push(await allowedWrite(allowing, i));
    }
    const sandbox = asking.sandbox.kind === 'bubblewrap' ? asking.sandbox.version : `no sandbox (${asking.sandbox.reason})`;
    return {
      title: `Approval → result: write_file of one line, approved through the console's decideApproval after ${READING_MS} ms on screen`,
      rows: [
        { label: 'first write of a gate just started: Approve → result', samples: first },
        { label: 'Approve → executor result (asked)', samples: approved },
        { label: 'the same write auto-allowed: call → result', samples: allowed },
        ...[...stepSamples].map(([step, samples]) => ({ label: `  Approve → ${step} begins`, samples })),
      ],
      notes: [
        `createGate defaults (${sandbox}); baseline: a second gate allowing write_file by a rule, so nobody is asked (no dry run, no prompt)`,
        'the rows under the two show when each step of the approved call began, from Approve (from the Live view\'s callUpdated events)',
      ],
      differences: [['Approve → executor result (asked)', 'the same write auto-allowed: call → result']],
      targets: [
        {
          name: 'Approve → result for the first write_file of a gate just started, p50',
          measured: percentile(first, 50),
          unit: 'ms',
          holdsWhen: 'at-most',
          limit: APPROVAL_TO_RESULT_LIMIT_MS,
        },
        { name: 'Approve → result for a small write_file, p50', measured: percentile(approved, 50), unit: 'ms', holdsWhen: 'at-most', limit: APPROVAL_TO_RESULT_LIMIT_MS },
      ],
    };
  } finally {
    await Promise.all([asking.close(), allowing.close()]);
    rmSync(root, { recursive: true, force: true });
  }
}
