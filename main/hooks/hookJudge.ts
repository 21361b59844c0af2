import { homedir } from 'node:os';
import { sep } from 'node:path';
import type { AgentInfo } from '../../shared/call';
import { GateError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { Capability, ToolManifest } from '../../shared/manifest';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import { CallRun } from '../executor/callRun';
import type { CallRedactions } from '../executor/callRedactions';
import type { CallTracker } from '../executor/callTracker';
import type { AuditSink } from '../executor/executor';
import { mustAsk } from '../executor/steps/mustAsk';
import { covers } from '../executor/steps/checkCapabilities';
import { countDiffLines } from '../executor/steps/preparePreview';
import { deciderOf, deciderOfOutcome } from '../policy/policyDecisions';
import { resolvedOtherwise, resolvePath, shownPath } from '../policy/pathRule';
import { callTier, decideCall, type Policy, type PolicyDecision } from '../policy/tierPolicy';
import type { ToolRegistry } from '../registry/registry';
import type { BashRunReply, RunGrant } from './bashRun';
import { bashTimeoutMs, hostBashDecision, inGateBashDecision, replyOf, type BashInGate } from './bashInGate';
import { equivalentCall, type EquivalentCall } from './claudeCodeTools';
import type { EffectsRecorder } from '../executor/steps/recordEffects';
import { HookOutcomes } from './hookOutcomes';
import { hookUndoability } from './hookUndoability';
import { hookPreview } from './hookPreview';
import { isInside } from '../tools/workspacePath';
import { hookFacts, preToolUseAnswer, recordedHookTool, type GateAnswer, type HookInput, type PreToolUseInput } from './hookInput';
import type { Judgment } from '../executor/steps/judgedAgain';

/** What the judge needs from the gate: the same policy, approval queue, audit and Live view as every call. */
export interface HookJudgeDeps {
  registry: ToolRegistry;
  policy: Policy;
  approvals: ApprovalQueue;
  audit: AuditSink;
  calls: CallTracker;
  redactions: CallRedactions;
  /** Real path of the workspace: a path outside it is never allowed unasked. */
  workspace: string;
  /** What the gate grants: an upstream tool classed as needing more is refused through the hook as over MCP. */
  grants?: readonly Capability[];
  /** How long an allowed call waits for its PostToolUse before it is closed as unreported (default 1 h). */
  outcomeWaitMs?: number;
  /** How many allowed calls may wait for their PostToolUse at once (default 10,000; past it the oldest is closed unreported). */
  maxOpenCalls?: number;
  /** Where an allowed Bash call runs: in the gate's sandbox (with what runs it there), or on the host by Claude Code. */
  bash: BashInGate;
  /** Records what Claude Code's Write, Edit, MultiEdit and host-run Bash changed, between PreToolUse and PostToolUse (absent: nothing). */
  effects?: EffectsRecorder;
  /** How many programs started through the gate run now or wait for their turn, able to change the workspace (CallScheduler). */
  programsRunning?: () => number;
  /** How many calls that started programs have ended (CallScheduler.programsEnded): one ended before a granted run means judging it again. */
  programsEnded?: () => number;
}

/** A PreToolUse answered by the gate: the hook's answer, and for a Bash call the gate runs, its grant. */
type PreToolUseAnswer = Extract<GateAnswer, { hookSpecificOutput: unknown }>;

/**
 * Whether a path (already as the kernel takes it: equivalentCall resolves each `..`) may lead outside the workspace: as written
 * or where its links lead. One still holding a `..` could not be resolved, so where it leads is
 * unknown, and it counts as outside.
 */
function leavesWorkspace(path: string, workspace: string): boolean {
  if (path.split(sep).includes('..')) return true;
  return resolvePath(path, workspace, { workspace, home: homedir() }).inWorkspace === undefined;
}

/** A path of the call as Claude Code's tool_input wrote it, with the absolute path it was judged as when that reads otherwise. */
function shownOutside(call: EquivalentCall, absolute: string): string {
  const written = call.written[absolute] ?? absolute;
  return shownPath(written, resolvedOtherwise(written, absolute));
}

/** Claude Code sessions whose first-seen time is kept. */
const MAX_SESSIONS_KEPT = 1000;

/** Claude Code's name for a tool of the MCP server it knows as `toolgate`: this gate's own. */
const TOOLGATE_MCP = /^mcp__toolgate__(.+)$/;

/**
 * Judges Claude Code's own tools from its PreToolUse hook through the gate's pipeline (policy, a
 * person in the console, the audit) and records their outcomes from PostToolUse. An allowed Bash
 * call runs in the gate (see runGranted), which closes it; any other tool Claude Code runs itself:
 * the call stays open in the audit until its PostToolUse closes it (tied by session, tool and
 * tool_use_id), or until the wait runs out or the gate stops, which close it as failed.
 * A decision the gate cannot reach (a prompt nobody answered, a full queue) is `ask`, so Claude
 * Code's own prompt takes over; never a silent allow.
 */
export class HookJudge {
  private readonly outcomes: HookOutcomes;
  /** When each Claude Code session was first seen: the agent the console names. */
  private readonly sessionsSeen = new Map<string, string>();

  constructor(private readonly deps: HookJudgeDeps) {
    this.outcomes = new HookOutcomes(deps, deps.outcomeWaitMs ?? 3600_000, deps.maxOpenCalls);
  }

  /** Answers one hook input; `signal` withdraws a waiting prompt (the hook process went away). */
  async answer(input: HookInput, signal?: AbortSignal): Promise<GateAnswer> {
    if (input.hook_event_name !== 'PreToolUse') {
      await this.outcomes.record(input, this.agent(input.session_id));
      await this.deps.audit.durable();
      return {};
    }
    const run = new CallRun(this.deps, recordedHookTool(input.tool_name), 'claude-code', input.session_id, this.agent(input.session_id));
    let answer: PreToolUseAnswer;
    try {
      answer = await this.judge(run, input, signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      run.fail('failed', run.step, { code: 'ERUNTIME', message: `the gate failed at step ${run.step}: ${message}` });
      answer = preToolUseAnswer('deny', `Toolgate could not judge this call (${message})`);
    }
    // Claude Code is not answered ahead of the call's records.
    try {
      await this.deps.audit.durable();
    } catch (error) {
      return preToolUseAnswer('deny', `Toolgate could not write its audit log (${(error as Error).message}), so the call is denied`);
    }
    return answer;
  }

  /**
   * Runs the command of an allowed Bash call in the gate's sandbox, on the call's own record, once:
   * `toolgate hook run` asks for it with the grant and the hash of the text. `signal` (the command
   * Claude Code ran went away) stops it. An unknown, spent or mismatched grant runs nothing.
   */
  async runGranted(presented: RunGrant, signal?: AbortSignal): Promise<BashRunReply> {
    const bash = this.deps.bash;
    const taken = this.outcomes.takeGrant(presented);
    if ('refused' in taken) {
      await this.deps.audit.durable();
      return { ran: false, message: taken.refused };
    }
    if (!bash.inGate) throw new Error('a grant was issued by a gate that does not run Bash');
    const { run, grant } = taken;
    const result = await bash.run(run, 'shell_exec', { command: grant.command, cwd: grant.cwd, timeoutMs: grant.timeoutMs }, signal, grant.judgment);
    return replyOf(result, run.step);
  }

  /** Closes every call still waiting for its PostToolUse (the gate is stopping). Idempotent. */
  close(): void {
    this.outcomes.close();
  }

  private agent(session: string): AgentInfo {
    let since = this.sessionsSeen.get(session);
    if (since === undefined) {
      since = new Date().toISOString();
      this.sessionsSeen.set(session, since);
      // Bounded: a flood of made-up session ids costs the oldest their first-seen time, never memory.
      if (this.sessionsSeen.size > MAX_SESSIONS_KEPT) this.sessionsSeen.delete(this.sessionsSeen.keys().next().value!);
    }
    return { client: 'Claude Code', version: 'hook', sessionStartedAt: since };
  }

  private async judge(run: CallRun, input: PreToolUseInput, signal: AbortSignal | undefined): Promise<PreToolUseAnswer> {
    const shown = this.deps.redactions.redactValue(input.tool_input);
    const inGate = input.tool_name === 'Bash' && this.deps.bash.inGate;
    run.begin(run.tool, shown, { hook: hookFacts(input, inGate ? 'toolgate-sandbox' : 'claude-code') });
    run.at('validate');
    const mapping = equivalentCall(input.tool_name, input.tool_input, input.cwd);
    if ('malformed' in mapping) {
      const error = run.fail('rejected', 'validate', { code: 'EVALIDATION', message: mapping.malformed }).error!;
      return preToolUseAnswer('deny', error.message);
    }
    run.at('policy');
    const call = 'call' in mapping ? mapping.call : undefined;
    const manifest = call ? this.deps.registry.get(call.tool)?.tool.manifest : undefined;
    const unknown = 'unknown' in mapping ? mapping.unknown : undefined;
    // Counted before the rules look at the files: a program that ends while they do may have changed them.
    const programsEnded = this.deps.programsEnded?.() ?? 0;
    const decision = await this.decide(input, call, manifest, unknown);
    // A command the gate runs later is judged again then if the workspace may have changed (executor/steps/judgedAgain.ts).
    const judgment = (askedPerson: boolean): Judgment => ({ decision, programsEnded, askedPerson, judgeAgain: () => this.decide(input, call, manifest, unknown, decision.decision) });
    run.audit('policy', {
      ...decision,
      tier: manifest && call ? callTier(manifest, call.input).tier : 'RESTRICTED',
      ...(manifest ? { judgedAs: manifest.name } : {}),
    });
    run.at('policy', { decidedBy: deciderOf(decision) });
    if (decision.decision === 'deny') {
      const error = run.fail('rejected', 'policy', { code: 'EDENIED', message: `denied by policy: ${decision.reason}`, details: { rule: decision.rule } }).error!;
      return preToolUseAnswer('deny', `Toolgate: ${error.message}`);
    }
    if (decision.decision === 'ask') return this.askPerson(run, input, call, manifest, decision, signal, judgment(true));
    const racing = this.swappableWhileItRuns(call);
    if (racing) return this.askPerson(run, input, call, manifest, { decision: 'ask', rule: 'hook:program-running', reason: `${racing} (the rules would allow it: ${decision.reason})` }, signal, judgment(true));
    return this.letThrough(run, input, call, `Toolgate allows it: ${decision.reason}`, judgment(false));
  }

  /**
   * Why a file call Claude Code makes itself, on the host, cannot be allowed unasked now: a program
   * started through the gate is running, or is about to (waiting for its turn, or granted to a Bash
   * call Claude Code has yet to run), and may replace a name in the workspace with a link to a file
   * a deny names, or outside it, between this check and Claude Code's open, which follows links. A
   * person decides instead; with none running or about to, the check holds.
   */
  private swappableWhileItRuns(call: EquivalentCall | undefined): string | undefined {
    if (!call || call.command || call.paths.length === 0) return undefined;
    const running = (this.deps.programsRunning?.() ?? 0) + this.outcomes.grantsWaiting();
    if (running === 0 || !call.paths.some((path) => isInside(this.deps.workspace, path))) return undefined;
    return `${running === 1 ? 'a program' : `${running} programs`} started through Toolgate ${running === 1 ? 'is' : 'are'} running in the workspace or about to, and could swap this path for a link to another file before Claude Code opens it, so a person decides`;
  }

  /**
   * Lets an allowed call go: a Bash call the gate runs gets its grant (the hook command turns it into
   * the updatedInput that runs it here); any other waits for Claude Code to run it and report.
   */
  private letThrough(run: CallRun, input: PreToolUseInput, call: EquivalentCall | undefined, reason: string, judgment: Judgment): PreToolUseAnswer {
    if (call?.command && this.deps.bash.inGate) {
      const grant = this.outcomes.handOverToGate(run, input, call.command, bashTimeoutMs(input.tool_input), this.deps.bash.grantTtlMs, judgment);
      if (!grant) return preToolUseAnswer('deny', 'Toolgate is stopping, so it runs nothing more; try again once it runs');
      return { ...preToolUseAnswer('allow', `${reason}; it runs in Toolgate's sandbox`), runInGate: grant };
    }
    this.outcomes.handOver(run, input, call, 'allowed', reason);
    return preToolUseAnswer('allow', reason);
  }

  /** The policy's decision on the equivalent built-in call, never an allow for a path outside the workspace. */
  private async decide(input: PreToolUseInput, call: EquivalentCall | undefined, manifest: ToolManifest | undefined, unknown: string | undefined, again?: PolicyDecision['decision']): Promise<PolicyDecision> {
    if (!call || !manifest) {
      const ownTool = TOOLGATE_MCP.exec(input.tool_name)?.[1];
      if (ownTool !== undefined && this.deps.registry.get(ownTool)) {
        // Toolgate's own MCP tool: the call reaches this gate over MCP next and is judged there; asking here too would ask twice.
        return { decision: 'allow', rule: 'hook:toolgate-mcp', reason: `${ownTool} is Toolgate's own tool, judged by the gate when the call arrives over MCP` };
      }
      if (call && !input.tool_name.startsWith('mcp__')) {
        return { decision: 'deny', rule: 'hook:not-offered', reason: `this gate does not offer ${call.tool} (it runs read-only), so Claude Code's ${input.tool_name} is refused too` };
      }
      const why = unknown ?? `the gate serves no tool ${call?.tool}, so a person decides`;
      return { decision: 'ask', rule: 'hook:unknown-tool→ask', reason: why };
    }
    // An upstream tool is held to its review here as over MCP: changed since then, refused; never reviewed, asked.
    const entry = this.deps.registry.get(manifest.name);
    const unavailable = entry?.external?.unavailable();
    if (unavailable) return { decision: 'deny', rule: 'hook:unavailable', reason: unavailable };
    const missing = entry?.external ? manifest.capabilities.filter((required) => !(this.deps.grants ?? []).some((grant) => covers(grant, required))) : [];
    if (missing.length > 0) {
      return { decision: 'deny', rule: 'hook:capability', reason: `${manifest.name} needs ${missing.join(', ')}, which this gate does not grant; start the gate with --grant ${missing[0]} to allow it` };
    }
    const judged = await decideCall(this.deps.policy, manifest, call.input, { agentSession: input.session_id, pathsAsWritten: call.written, ...(again ? { again } : {}) });
    const decided = entry ? mustAsk(entry, judged) : judged;
    const { bash } = this.deps;
    if (call.command && bash.inGate) return inGateBashDecision(decided, call.command.cwd, this.deps.workspace, bash.sandbox, leavesWorkspace(call.command.cwd, this.deps.workspace));
    if (call.command && !bash.inGate) return hostBashDecision(this.withinWorkspace(call, decided), call.command, { workspace: this.deps.workspace, stateFolder: bash.stateFolder, home: homedir() });
    return this.withinWorkspace(call, decided);
  }

  /** An allow turned into ask when a path of the call leads outside the workspace (as written or where its links lead). */
  private withinWorkspace(call: EquivalentCall, decided: PolicyDecision): PolicyDecision {
    if (decided.decision !== 'allow') return decided;
    const outside = call.paths.find((path) => leavesWorkspace(path, this.deps.workspace));
    if (outside === undefined) return decided;
    return {
      ...decided,
      decision: 'ask',
      rule: 'hook:outside-workspace',
      reason: `${shownOutside(call, outside)} is outside the workspace ${this.deps.workspace} (as written or where its links lead), so a person decides although ${decided.reason}`,
    };
  }

  /** Asks a person in the console, as the executor does; the answer is allow, deny, or ask (Claude Code's prompt takes over). */
  private async askPerson(
    run: CallRun,
    input: PreToolUseInput,
    call: EquivalentCall | undefined,
    manifest: ToolManifest | undefined,
    decision: PolicyDecision,
    signal: AbortSignal | undefined,
    judgment: Judgment,
  ): Promise<PreToolUseAnswer> {
    run.at('preview');
    const preview = await hookPreview(call, this.deps.workspace);
    run.step = 'approval';
    const bindingHash = hashCanonical({ tool: run.tool, arguments: input.tool_input });
    const shown = this.deps.redactions.redactValue(input.tool_input);
    const suggestedRules = manifest && call ? ((await this.deps.policy.suggestRules?.(manifest, call.input).catch(() => undefined)) ?? []) : [];
    let asked: ReturnType<ApprovalQueue['ask']>;
    try {
      asked = this.deps.approvals.ask(
        {
          callId: run.callId,
          tool: run.tool,
          toolVersion: manifest?.version ?? '0.0.0',
          tier: manifest && call ? callTier(manifest, call.input).tier : 'RESTRICTED',
          rule: decision.rule,
          ...run.who(),
          arguments: shown,
          preview: this.deps.redactions.redactValue(preview),
          bindingHash,
          ...hookUndoability(this.deps.effects, call, manifest, {
            toolName: input.tool_name,
            bashOnHost: !this.deps.bash.inGate,
            outside: (path) => leavesWorkspace(path, this.deps.workspace),
          }),
          ...(suggestedRules.length > 0 ? { suggestedRules } : {}),
        },
        manifest && call ? { manifest, input: call.input } : undefined,
      );
    } catch (error) {
      if (!(error instanceof GateError)) throw error;
      // A full queue: Claude Code's own prompt takes over; the call waits for its outcome like any other.
      const reason = `Toolgate could not ask in its console (${error.message}); Claude Code asks instead`;
      this.outcomes.handOver(run, input, call, 'asked-in-claude-code', reason);
      return preToolUseAnswer('ask', reason);
    }
    const { request, outcome } = asked;
    run.askedPerson(request, { bindingHash, preview: preview.kind === 'diff' ? { kind: 'diff', path: preview.path, ...countDiffLines(preview.unified) } : preview });
    const withdraw = () => this.deps.approvals.withdraw(request.approvalId, 'Claude Code stopped waiting for the answer');
    if (signal?.aborted) withdraw();
    signal?.addEventListener('abort', withdraw, { once: true });
    const decided = await outcome.finally(() => signal?.removeEventListener('abort', withdraw));
    run.audit('approval-decided', decided);
    run.at('approval', { decidedBy: deciderOfOutcome(decided.outcome, decided.reason, false), waitedMs: CallRun.waitedSince(request) });
    if (decided.outcome === 'approved') {
      return this.letThrough(run, input, call, `a person approved it in Toolgate's console${decided.reason ? `: ${decided.reason}` : ''}`, judgment);
    }
    if (decided.outcome === 'denied') {
      const said = decided.tellAgent !== undefined ? `a person denied it and says:\n${decided.tellAgent}` : `a person denied it: ${decided.reason}`;
      run.fail('rejected', 'approval', { code: 'EDENIED', message: said });
      return preToolUseAnswer('deny', `Toolgate: ${said}`);
    }
    const why = decided.outcome === 'expired' ? `nobody answered in Toolgate's console in time (${decided.reason})` : `Toolgate's prompt was withdrawn (${decided.reason})`;
    const reason = `${why}; Claude Code asks instead`;
    this.outcomes.handOver(run, input, call, 'asked-in-claude-code', reason);
    return preToolUseAnswer('ask', reason);
  }
}
