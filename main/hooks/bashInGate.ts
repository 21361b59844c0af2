import type { ToolResult } from '../../shared/result';
import type { CallRun } from '../executor/callRun';
import type { SandboxInfo } from '../hosts/sandbox';
import type { PolicyDecision } from '../policy/tierPolicy';
import { MAX_SHELL_TIMEOUT_MS } from '../tools/shellExec';
import type { BashRunReply } from './bashRun';

/** How long a grant waits for Claude Code to start the command that runs it, by default. */
export const DEFAULT_GRANT_TTL_MS = 10 * 60_000;

/**
 * Where an allowed Claude Code Bash call runs (settings `claudeCodeBashInGate`): in the gate, as
 * shell_exec runs (with what runs it there), or, turned off, on the host by Claude Code itself.
 */
export type BashInGate =
  | { readonly inGate: false }
  | {
      readonly inGate: true;
      /** The gate's sandbox: without one, Bash is refused rather than run unconfined. */
      readonly sandbox: SandboxInfo;
      /** Runs a judged call of a gate tool on its open record (the executor's runJudged). */
      run(run: CallRun, tool: string, input: Record<string, unknown>, signal?: AbortSignal): Promise<ToolResult>;
      /** How long a grant waits for its run before the call ends unrun. */
      readonly grantTtlMs: number;
    };

/** The command's deadline: Claude Code's `timeout` (ms) when it gives one, bounded by shell_exec's longest. */
export function bashTimeoutMs(toolInput: Record<string, unknown>): number {
  const asked = toolInput.timeout;
  const wanted = typeof asked === 'number' && Number.isInteger(asked) && asked > 0 ? asked : MAX_SHELL_TIMEOUT_MS;
  return Math.min(wanted, MAX_SHELL_TIMEOUT_MS);
}

/**
 * The decision on a Bash call the gate is to run: a deny stands; one that could not run here (no
 * sandbox on this machine, or a cwd outside the workspace, where the sandbox runs nothing) is denied
 * now, saying why and what to change, rather than approved to fail or run unconfined.
 */
export function inGateBashDecision(decided: PolicyDecision, cwd: string, workspace: string, sandbox: SandboxInfo, cwdOutside: boolean): PolicyDecision {
  if (decided.decision === 'deny') return decided;
  if (sandbox.kind === 'none') {
    return {
      decision: 'deny',
      rule: 'hook:no-sandbox',
      reason:
        `Toolgate runs Claude Code's Bash only in its OS sandbox, and this gate has none (${sandbox.reason}), so nothing ran. ` +
        'Install bubblewrap and restart the gate, or set "claudeCodeBashInGate": false in settings.json to let Claude Code run Bash itself once Toolgate allowed it',
    };
  }
  if (cwdOutside) {
    return {
      decision: 'deny',
      rule: 'hook:outside-workspace',
      reason: `Claude Code works in ${cwd}, outside the workspace ${workspace}, and Toolgate's sandbox runs commands only inside the workspace, so nothing ran. Start Claude Code in the workspace, or the gate with --workspace ${cwd}`,
    };
  }
  return decided;
}

/**
 * The decision on a Bash call Claude Code runs on the host itself (`claudeCodeBashInGate` off): where
 * the paths the command names are judged before an allow stands. Today it is the decision as made.
 */
export function hostBashDecision(decided: PolicyDecision, _command: { line: string; cwd: string }): PolicyDecision {
  return decided;
}

/** What shell_exec returns. */
interface ShellOutput {
  exitCode: number;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  droppedChars?: number;
}

function shellOutputOf(value: unknown): ShellOutput | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const output = value as Partial<ShellOutput>;
  return typeof output.exitCode === 'number' && typeof output.stdout === 'string' && typeof output.stderr === 'string' ? (output as ShellOutput) : undefined;
}

/** The gate's own lines after the command's stderr. */
function withNote(stderr: string, note: string): string {
  return `${stderr}${stderr === '' || stderr.endsWith('\n') ? '' : '\n'}toolgate: ${note}\n`;
}

/**
 * What `toolgate hook run` hands Claude Code of a sandboxed run: the command's output and exit
 * status, the gate's word on stderr when it cut, stopped or undid something; or, when it failed
 * before the command started (`step` short of execute), that nothing ran and why.
 */
export function replyOf(result: ToolResult, step: string): BashRunReply {
  if (result.ok) {
    const output = shellOutputOf(result.data);
    if (!output) return { ran: true, exitCode: 1, stdout: '', stderr: withNote('', 'the gate returned no shell output') };
    let { stderr } = output;
    if (output.timedOut) stderr = withNote(stderr, 'the command ran past its deadline and was killed, with everything it started');
    if (output.droppedChars) stderr = withNote(stderr, `${output.droppedChars} characters of older output were left out (only the newest are kept)`);
    return { ran: true, exitCode: output.exitCode, stdout: output.stdout, stderr };
  }
  const error = result.error ?? { code: 'ERUNTIME', message: 'the gate gave no reason' };
  if (step !== 'execute' && step !== 'output') return { ran: false, message: `${error.code}: ${error.message}` };
  // Ran, then failed by the gate's hand (a limit, the protected-path rollback): what it printed, and why it failed.
  const toolResult = (error.details as { toolResult?: { ok?: boolean; data?: unknown } } | undefined)?.toolResult;
  const output = toolResult?.ok ? shellOutputOf(toolResult.data) : undefined;
  const stderr = withNote(output?.stderr ?? '', `${error.code}: ${error.message}`);
  return { ran: true, exitCode: output && output.exitCode !== 0 ? output.exitCode : 1, stdout: output?.stdout ?? '', stderr };
}
