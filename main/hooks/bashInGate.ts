import type { ToolResult } from '../../shared/result';
import type { CallRun } from '../executor/callRun';
import type { SandboxInfo } from '../hosts/sandbox';
import { bashStaysInWorkspace, type WorkspaceBounds } from '../policy/commandPaths';
import type { PolicyDecision } from '../policy/tierPolicy';
import { MAX_SHELL_TIMEOUT_MS } from '../tools/shellExec';
import type { BashRunReply } from './bashRun';
import type { Judgment } from '../executor/steps/judgedAgain';

/** How long a grant waits for Claude Code to start the command that runs it, by default. */
export const DEFAULT_GRANT_TTL_MS = 10 * 60_000;

/**
 * Where an allowed Claude Code Bash call runs (settings `claudeCodeBashInGate`): in the gate, as
 * shell_exec runs (with what runs it there), or, turned off, on the host by Claude Code itself.
 */
export type BashInGate =
  | {
      readonly inGate: false;
      /** Toolgate's state folder: a host-run line that names it is never allowed unasked. */
      readonly stateFolder: string;
    }
  | {
      readonly inGate: true;
      /** The gate's sandbox: without one, Bash is refused rather than run unconfined. */
      readonly sandbox: SandboxInfo;
      /** Runs a judged call of a gate tool on its open record (the executor's runJudged). */
      run(run: CallRun, tool: string, input: Record<string, unknown>, signal?: AbortSignal, judgment?: Judgment): Promise<ToolResult>;
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
 * The decision on a Bash call Claude Code runs on the host itself (`claudeCodeBashInGate` off), with
 * no sandbox around it: an allow stands only when every path the line names or globs (after `~user`,
 * globs, `cd` and symlinks) lies in the workspace and none in the state folder; a line whose reach is
 * known only when it runs is not known to stay. Otherwise a person decides.
 */
export async function hostBashDecision(decided: PolicyDecision, command: { line: string; cwd: string }, bounds: WorkspaceBounds): Promise<PolicyDecision> {
  if (decided.decision !== 'allow') return decided;
  const verdict = await bashStaysInWorkspace(command.line, command.cwd, bounds);
  if (verdict.ok) return decided;
  return {
    ...decided,
    decision: 'ask',
    rule: 'hook:host-bash-outside-workspace',
    reason: `Claude Code runs this Bash on the host, outside Toolgate's sandbox, and the line is not known to stay in the workspace (${verdict.reason}), so a person decides although ${decided.reason}`,
  };
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
