import type { EffectsRecorder, EffectsWatch } from '../executor/steps/recordEffects';
import type { AgentInfo } from '../../shared/call';
import { canonicalize } from '../../shared/canonicalJson';
import { hashCanonical } from '../../shared/hash';
import { CallRun } from '../executor/callRun';
import type { CallRedactions } from '../executor/callRedactions';
import type { CallTracker } from '../executor/callTracker';
import { AUDIT_OUTPUT_BYTES, type AuditSink } from '../executor/executor';
import { utf8Prefix } from '../executor/steps/truncateOutput';
import { grantToken, hashMatches, newGrant, SpentGrants, startingGrants, type BashGrant } from './bashGrants';
import type { RunGrant } from './bashRun';
import type { EquivalentCall } from './claudeCodeTools';
import { hookFacts, recordedHookTool, type HookInput, type PostToolUseFailureInput, type PostToolUseInput, type PreToolUseInput } from './hookInput';
import type { Judgment } from '../executor/steps/judgedAgain';

/** Why a call still waiting for its outcome ends when the gate stops. */
const STOPPED = 'the gate stopped before Claude Code reported how the tool ended';

/** Calls kept waiting for their PostToolUse at once by default; past it the oldest is closed unreported. */
const MAX_OPEN_HOOK_CALLS = 10_000;

/** Calls remembered after their run in the gate, so their PostToolUse is not taken for a call of its own. */
const MAX_RAN_KEPT = 10_000;

/** A call Claude Code was let through to run (or to ask about itself), waiting for its PostToolUse or for its run in the gate. */
interface OpenHookCall {
  readonly run: CallRun;
  readonly timer: NodeJS.Timeout;
  /** Set when the gate runs it: the grant the command Claude Code runs must present. */
  readonly grant?: BashGrant;
  /** Set for a file write or host-run Bash Claude Code makes itself: what it changes, from PreToolUse to PostToolUse. */
  readonly watch?: EffectsWatch;
}

/** A grant taken to run: the call it runs on and what runs, or why nothing may. */
export type TakenGrant = { run: CallRun; grant: BashGrant } | { refused: string };

/** How a call left the gate for Claude Code: allowed to run, or handed to Claude Code's own prompt. */
export type HandOver = 'allowed' | 'asked-in-claude-code';

/**
 * The calls Claude Code runs after the gate judged them, keyed by session, tool and tool_use_id, and how
 * each ends: its PostToolUse records `completed` with the response's hash and a bounded copy; no
 * PostToolUse within the wait (the tool failed, Claude Code's prompt refused it, Claude Code quit)
 * records `failed` ETIMEOUT; a gate that stops records `failed` for each still open. A Bash call the
 * gate runs waits instead for its run, under a one-use grant (handOverToGate, takeGrant): its run
 * closes it, and its PostToolUse then adds nothing. So every call gets exactly one terminal record,
 * and a gate killed outright leaves them to the next start's `interrupted`.
 */
export class HookOutcomes {
  private readonly open = new Map<string, OpenHookCall>();
  /** The open call of each grant not yet used, by grant id. */
  private readonly granted = new Map<string, string>();
  private readonly spent = new SpentGrants();
  /** Calls that ran in the gate (their own run closed them), until their PostToolUse comes. */
  private readonly ranInGate = new Set<string>();
  private closed = false;

  constructor(
    private readonly deps: { audit: AuditSink; calls: CallTracker; redactions: CallRedactions; effects?: EffectsRecorder },
    private readonly waitMs: number,
    private readonly maxOpen = MAX_OPEN_HOOK_CALLS,
  ) {}

  /** Records that the call left the gate, and waits for its PostToolUse (closes it now when nothing can tie one to it). */
  handOver(run: CallRun, input: PreToolUseInput, call: EquivalentCall | undefined, how: HandOver, reason: string): void {
    // Out of the gate's hands either way: Claude Code runs it, or first asks at its own prompt.
    run.at(how === 'allowed' ? 'execute' : 'claude-code-prompt', { status: 'running' });
    if (how === 'allowed') {
      run.startRunning();
      run.audit('started', { tool: run.tool, ...(call ? { judgedAs: call.tool } : {}), runBy: 'claude-code', sandbox: 'none', inputHash: hashCanonical(input.tool_input), reason });
    }
    if (input.tool_use_id === undefined) {
      // Nothing can tie a PostToolUse to this call: it ends here, saying so.
      const note = 'Claude Code sent no tool_use_id, so its outcome cannot be recorded';
      const responseHash = hashCanonical({ note });
      run.audit('completed', { runBy: 'claude-code', handedOver: how, outcome: 'unreported', note, responseHash, durationMs: run.elapsedMs() });
      run.finish({ ok: true, data: { note } }, responseHash, 'completed', 'completed');
      return;
    }
    if (this.closed) {
      run.fail('failed', 'execute', { code: 'ERUNTIME', message: STOPPED });
      return;
    }
    const key = keyOf(input);
    // A second PreToolUse for the same tool use ends the first: only one of them can be closed by its PostToolUse.
    this.end(key, 'ERUNTIME', 'another PreToolUse came for the same tool use, which this record no longer follows');
    const timer = setTimeout(() => this.end(key, 'ETIMEOUT', `Claude Code reported no outcome within ${Math.round(this.waitMs / 60_000)} min (the tool failed, was refused at Claude Code's prompt, or Claude Code stopped)`), this.waitMs);
    timer.unref();
    // A Write, Edit or MultiEdit Claude Code makes itself, once allowed here or at its own prompt: its
    // path is watched until its outcome comes. A Bash it runs on the host (the gate runs none here):
    // the whole workspace, scanned now and at its outcome, as for shell_exec.
    const watch = call?.change !== undefined ? this.deps.effects?.watchAbsolute(call.paths) : call?.command !== undefined ? this.deps.effects?.watchWorkspace() : undefined;
    this.open.set(key, { run, timer, ...(watch ? { watch } : {}) });
    // Bounded: a flood of PreToolUse calls that never report costs the oldest their wait, never memory.
    if (this.open.size > this.maxOpen) this.end(this.open.keys().next().value!, 'ERUNTIME', `more than ${this.maxOpen} calls were waiting for Claude Code to report their outcome, so the oldest stopped waiting`);
  }

  /**
   * Issues the one-use grant of an allowed Bash call the gate runs itself, and keeps the call open for
   * that run; undefined when the gate is stopping. Not run within `ttlMs`, the call ends as failed and
   * the grant with it.
   */
  handOverToGate(run: CallRun, input: PreToolUseInput, command: { line: string; cwd: string }, timeoutMs: number, ttlMs: number, judgment?: Judgment): RunGrant | undefined {
    if (this.closed) {
      run.fail('failed', 'execute', { code: 'ERUNTIME', message: STOPPED });
      return undefined;
    }
    const grant = newGrant(command.line, command.cwd, timeoutMs, judgment);
    run.at('awaiting-run', { status: 'running' });
    // Without a tool_use_id no PostToolUse can be tied to it; its run in the gate still closes it.
    const key = input.tool_use_id === undefined ? `grant\n${grant.id}` : keyOf(input);
    this.end(key, 'ERUNTIME', 'another PreToolUse came for the same tool use, which this record no longer follows');
    const expired = `Claude Code did not start the approved command within ${Math.round(ttlMs / 1000)} s, so its grant expired and nothing ran`;
    const timer = setTimeout(() => this.end(key, 'ETIMEOUT', expired), ttlMs);
    timer.unref();
    this.open.set(key, { run, timer, grant });
    this.granted.set(grant.id, key);
    if (this.open.size > this.maxOpen) this.end(this.open.keys().next().value!, 'ERUNTIME', `more than ${this.maxOpen} calls were waiting for Claude Code to report their outcome, so the oldest stopped waiting`);
    return grantToken(grant);
  }

  /** How many Bash calls were granted a run in the gate moments ago that has not started yet (see startingGrants). */
  grantsWaiting(): number {
    const grants = [...this.granted.values()].flatMap((key) => this.open.get(key)?.grant ?? []);
    return startingGrants(grants, performance.now());
  }

  /**
   * Takes a grant to run its command, once: whatever follows, the grant is spent. A hash that is not
   * the approved text's ends the call as rejected; an unknown or spent grant is refused with why.
   */
  takeGrant(presented: RunGrant): TakenGrant {
    const key = this.granted.get(presented.grant);
    const open = key === undefined ? undefined : this.open.get(key);
    if (key === undefined || !open?.grant) return { refused: this.spent.refusal(presented.grant) };
    clearTimeout(open.timer);
    this.open.delete(key);
    this.granted.delete(presented.grant);
    this.spent.spend(presented.grant, 'was used already: each grant runs its command once');
    if (!hashMatches(open.grant, presented.sha256)) {
      const message = `the command presented (SHA-256 ${presented.sha256}) is not the one approved (${open.grant.sha256}), so nothing ran`;
      open.run.fail('rejected', 'approval', { code: 'EDENIED', message });
      return { refused: message };
    }
    this.ranInGate.add(key);
    if (this.ranInGate.size > MAX_RAN_KEPT) this.ranInGate.delete(this.ranInGate.values().next().value!);
    return { run: open.run, grant: open.grant };
  }

  /**
   * Records a PostToolUse (completed, with the response's hash and a bounded copy) or a
   * PostToolUseFailure (failed, with Claude Code's error): it closes the call its PreToolUse opened,
   * or stands as a call of its own.
   */
  async record(input: PostToolUseInput | PostToolUseFailureInput, agent: AgentInfo): Promise<void> {
    // A call that ran in the gate was closed by its run, whose output is what Claude Code reports.
    if (input.tool_use_id !== undefined && this.ranInGate.delete(keyOf(input))) return;
    // Claude Code reports a command it runs in the background at once: its run in the gate, still to come, closes the call.
    if (this.awaitsItsRun(input)) return;
    const open = this.closing(input);
    const run = open?.run ?? this.unjudged(input, agent);
    if (open?.watch) run.effects = await open.watch.end();
    // Its grant unused, Claude Code ran the call itself, on the host: it did not apply the updatedInput it was given.
    const onHost = open?.grant ? 'Claude Code ran this call itself, outside the gate\'s sandbox, instead of the command it was given to run it there' : undefined;
    if (open?.grant) this.spent.spend(open.grant.id, 'was withdrawn: Claude Code reported the call ended without running it through the gate');
    if (input.hook_event_name === 'PostToolUseFailure') {
      const failed = `Claude Code's ${input.tool_name} failed: ${input.error ?? 'it gave no reason'}`;
      run.fail('failed', 'execute', { code: 'ERUNTIME', message: onHost ? `${failed} (${onHost})` : failed });
      return;
    }
    const response = this.deps.redactions.redactValue(input.tool_response ?? null);
    const canonical = canonicalize(response);
    const bytes = Buffer.byteLength(canonical);
    const responseHash = hashCanonical(response);
    run.audit('completed', {
      runBy: 'claude-code',
      ...(onHost ? { ranOnHost: onHost } : {}),
      responseHash,
      bytes,
      durationMs: run.elapsedMs(),
      ...(run.effects ? { effects: run.effects } : {}),
      output: bytes <= AUDIT_OUTPUT_BYTES ? response : { head: utf8Prefix(canonical, AUDIT_OUTPUT_BYTES), bytes, cut: true },
    });
    run.finish({ ok: true, data: response }, responseHash, 'completed', 'completed');
  }

  /** Whether this outcome is of the very command that runs an open call's grant, which has not run yet. */
  private awaitsItsRun(input: PostToolUseInput | PostToolUseFailureInput): boolean {
    if (input.tool_use_id === undefined || input.hook_event_name !== 'PostToolUse') return false;
    const grant = this.open.get(keyOf(input))?.grant;
    const command = input.tool_input.command;
    return grant !== undefined && typeof command === 'string' && command.includes(` hook run ${grant.id} `);
  }

  /** The open call this outcome closes (taken off the waiting list), if one waits for it. */
  private closing(input: PostToolUseInput | PostToolUseFailureInput): OpenHookCall | undefined {
    if (input.tool_use_id === undefined) return undefined;
    const key = keyOf(input);
    const open = this.open.get(key);
    if (!open) return undefined;
    clearTimeout(open.timer);
    this.open.delete(key);
    if (open.grant) this.granted.delete(open.grant.id);
    return open;
  }

  /** A call of its own for an outcome no open call waits for (its PreToolUse went to another gate, or none came). */
  private unjudged(input: PostToolUseInput | PostToolUseFailureInput, agent: AgentInfo): CallRun {
    const run = new CallRun(this.deps, recordedHookTool(input.tool_name), 'claude-code', input.session_id, agent);
    const hook = { ...hookFacts(input), unjudged: 'no PreToolUse of this tool use is open in this gate' };
    run.begin(run.tool, this.deps.redactions.redactValue(input.tool_input), { hook }, { status: 'running', step: 'execute' });
    return run;
  }

  /** Ends every call still waiting (the gate is stopping). Idempotent. */
  close(): void {
    this.closed = true;
    for (const key of [...this.open.keys()]) this.end(key, 'ERUNTIME', STOPPED);
  }

  private end(key: string, code: 'ETIMEOUT' | 'ERUNTIME', message: string): void {
    const open = this.open.get(key);
    if (!open) return;
    clearTimeout(open.timer);
    this.open.delete(key);
    if (open.grant) {
      this.granted.delete(open.grant.id);
      this.spent.spend(open.grant.id, `ended unused: ${message}`);
    }
    if (open.watch) open.run.effects = open.watch.endNow();
    open.run.fail('failed', 'execute', { code, message });
  }
}

/**
 * What ties an outcome to its call: the session, the tool and the tool_use_id. An outcome naming
 * another tool is not this call's, whatever id it claims; it stands as a call of its own.
 */
function keyOf(input: HookInput): string {
  return `${input.session_id}\n${input.tool_name}\n${input.tool_use_id}`;
}
