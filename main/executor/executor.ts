import type { CallRequest } from '../../shared/call';
import { canonicalize } from '../../shared/canonicalJson';
import { GateError, type ToolError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import { mutatingEffects, type SecurityTier, type SideEffect, type ToolManifest } from '../../shared/manifest';
import type { ToolResult } from '../../shared/result';
import type { CallEdit, Preview } from '../../shared/approval';
import { withdrawalReason } from '../approvals/agentLeft';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import { checkEdit, reviseCall, revisionSubject, type RevisedCall, type RevisionSubject } from '../approvals/callReviser';
import { fastBlake3Hex } from '../audit/fastBlake3';
import { contentEditable } from '../approvals/editedArguments';
import { profileFor } from '../hosts/sandbox';
import { deciderOf, deciderOfOutcome } from '../policy/policyDecisions';
import { effectiveTier } from '../policy/sandboxTier';
import { callTier, decideCall } from '../policy/tierPolicy';
import { isUpstream, type RegisteredTool } from '../registry/registry';
import { auditLost } from './steps/auditLost';
import { mustAsk } from './steps/mustAsk';
import { checkCapabilities } from './steps/checkCapabilities';
import { lookupTool } from './steps/lookupTool';
import { normalizeOutput } from './steps/normalizeOutput';
import { countDiffLines, preparePreview } from './steps/preparePreview';
import { StepFailure } from './steps/stepFailure';
import { admitArguments, type Admission } from './steps/admitArguments';
import { recordedArguments, recordedToolName } from './steps/recordedArguments';
import { askForSecrets, resolveSecrets, type ResolvedInput } from './steps/resolveSecrets';
import { capOutput, utf8Prefix } from './steps/truncateOutput';
import { validateInput } from './steps/validateInput';
import { judgedAgain, type Judgment } from './steps/judgedAgain';
import { CallRun } from './callRun';
import type { EffectsWatch } from './steps/recordEffects';
import type { ToolLogLine } from './callLogs';
import { AUDIT_OUTPUT_BYTES, type CallOptions, type ExecutorDeps } from './executorDeps';
import { mayShareProcess, runsOnlyGateCode } from '../tools/builtinTools';

export { AUDIT_OUTPUT_BYTES, type AuditSink, type CallOptions, type ExecutorDeps } from './executorDeps';

/** Side effects of a tool that may run while its first records are committed: reads of this machine. */
const LOCAL_READS: ReadonlySet<SideEffect> = new Set(['FsRead', 'DbRead']);

/** The hash an approval is bound to: this tool's manifest and these exact arguments. */
export function bindingHash(manifest: ToolManifest, input: unknown): string {
  return hashCanonical({ manifest: hashCanonical(manifest), arguments: input });
}

/**
 * The gate's pipeline: lookup → validate → capability → policy → approval → tool process →
 * output check → canonical JSON + BLAKE3 → result. Each step is recorded (CallRun keeps them and
 * writes as few records as durability needs); every call ends with exactly one of completed, failed
 * or rejected. A tool's failure is a result, never a throw.
 */
export class Executor {
  /** Calls under way, by id: what stop() aborts. */
  private readonly stoppers = new Map<string, AbortController>();

  constructor(private readonly deps: ExecutorDeps) {}

  /**
   * Stops a call a person chose to stop in the console: a prompt still waiting is withdrawn, a
   * running tool's process is killed. False when no such call is under way.
   */
  stop(callId: string): boolean {
    const stopper = this.stoppers.get(callId);
    if (!stopper) return false;
    stopper.abort();
    return true;
  }

  /**
   * Runs one call through the whole pipeline. `signal` withdraws the call (the agent cancelled it):
   * a prompt still waiting is taken back. Every call ends with exactly one terminal audit record,
   * even when the gate itself fails mid-way.
   */
  async call(request: CallRequest, options: CallOptions = {}): Promise<ToolResult> {
    // A call that does not reach an agent's door (the console, a test) starts the first tool process too.
    this.deps.pool.warm();
    // Its steps are written where this pipeline needs them in the log: a person asked, a write-ahead, the end.
    const run = new CallRun(this.deps, request.tool, request.source ?? 'test', request.agentSession, request.agent, true);
    const tool = recordedToolName(request.tool);
    // One walk bounds, checks and records the arguments; a refusal it makes is the pipeline's first step.
    const admission = admitArguments(request.arguments);
    const shown = this.deps.redactions.redactValue(admission.recorded);
    run.begin(tool, shown, request.replayOf ? { replayOf: request.replayOf } : {});
    const { onLog } = options;
    // Every line redacted as a result is: a secret the tool or its server wrote never reaches the agent.
    const stopHearing = onLog ? this.deps.logs.listen(run.callId, (line) => onLog({ level: line.level, logger: line.logger ?? tool, data: this.deps.redactions.redactValue(line.data) })) : undefined;
    try {
      return await this.stoppable(run, options.signal, (signal) => this.pipeline(run, request, admission, signal, options));
    } finally {
      // Every line of the call is in by now: the pool answers only once it read the call's stderr to its end.
      stopHearing?.();
    }
  }

  /**
   * Runs a call's body with a Stop of its own (beside the caller's signal), ends it with one failed
   * record if the gate itself throws, and answers only once its records are committed.
   */
  private async stoppable(run: CallRun, outer: AbortSignal | undefined, body: (signal: AbortSignal) => Promise<ToolResult>): Promise<ToolResult> {
    const stopper = new AbortController();
    this.stoppers.set(run.callId, stopper);
    // The caller's abort reaches the stopper with its reason (why the agent withdrew the call). A
    // listener removed at the end, not AbortSignal.any, whose weak references every call paid for in GC.
    const passOn = () => stopper.abort(outer!.reason);
    if (outer?.aborted) passOn();
    else outer?.addEventListener('abort', passOn, { once: true });
    let result: ToolResult;
    try {
      result = await body(stopper.signal);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      result = run.fail('failed', run.step, { code: 'ERUNTIME', message: `the gate failed at step ${run.step}: ${message}` });
    } finally {
      this.stoppers.delete(run.callId);
      outer?.removeEventListener('abort', passOn);
    }
    // No agent is answered ahead of its call's records: they are committed with the next group
    // commit, at once when no other call is under way to share it and the call is one record (it
    // changed nothing). One that may have changed files waits for the turn all the same, so the
    // loop polls (and the effects recorder hears the kernel's word of the writes) before its agent
    // can send the next call: committed at once, a write_file's recording cost the next one 13 ms.
    return this.deps.audit.durable({ now: this.stoppers.size === 0 && run.isOneRecord }).then(
      () => result,
      (error: unknown) => auditLost(result, error),
    );
  }

  /**
   * Runs a call another judge already allowed (Claude Code's Bash, judged by its hook) on that
   * judge's open call: the arguments checked against the tool's schema and the gate's grants, then
   * the same scheduler, tool process, sandbox, limits and audit records as any call of the tool. No
   * person is asked again; the judge's own `judgment` is judged again at its turn only when a program
   * that ended since may have changed its files. A person may still stop it from the Live view.
   */
  runJudged(run: CallRun, tool: string, args: unknown, signal?: AbortSignal, judgment?: Judgment): Promise<ToolResult> {
    return this.stoppable(run, signal, (stoppable) => this.judgedRun(run, tool, args, stoppable, judgment));
  }

  private async judgedRun(run: CallRun, tool: string, args: unknown, signal: AbortSignal, judgment: Judgment | undefined): Promise<ToolResult> {
    const entry = lookupTool(this.deps.registry, tool);
    if (entry instanceof StepFailure) return run.fail('rejected', entry.step, entry.error);
    const unavailable = entry.review?.refusal() ?? this.deps.unavailableReason?.(entry.tool.manifest.name);
    if (unavailable) return run.fail('rejected', 'lookup', { code: 'EUNAVAILABLE', message: unavailable });
    run.at('validate');
    const input = validateInput(entry, args);
    if (input instanceof StepFailure) return run.fail('rejected', input.step, input.error);
    run.at('capability');
    const capability = checkCapabilities(entry.tool.manifest, input, this.deps.grants, this.deps.workspace);
    run.audit('capability', capability instanceof StepFailure ? { allowed: false, error: capability.error } : { allowed: true, ...capability });
    if (capability instanceof StepFailure) return run.fail('rejected', capability.step, capability.error);
    // No secret is put in: the text runs as it was judged.
    // Handed on whole: the caller keeps what it shows of it (the tool itself still keeps only the newest output).
    return this.execute(run, entry, input, { input, secrets: [], values: [] }, undefined, signal, undefined, Number.POSITIVE_INFINITY, judgment);
  }

  private async pipeline(run: CallRun, request: CallRequest, admission: Admission, signal: AbortSignal | undefined, { onProgress, onAsked }: CallOptions): Promise<ToolResult> {
    // Arguments over a bound, too deep or not text are refused before anything else looks at them.
    if ('refusal' in admission) return run.fail('rejected', admission.refusal.step, admission.refusal.error);
    const { args } = admission;
    const entry = lookupTool(this.deps.registry, request.tool);
    if (entry instanceof StepFailure) return run.fail('rejected', entry.step, entry.error);
    const { manifest } = entry.tool;
    const unavailable = entry.external ? entry.external.unavailable() : (entry.review?.refusal() ?? this.deps.unavailableReason?.(manifest.name));
    if (unavailable) return run.fail('rejected', 'lookup', { code: 'EUNAVAILABLE', message: unavailable });
    // Arguments sent as raw text are shown parsed from here on; others were recorded as they came.
    const parsedFromText = 'recordedParsed' in admission ? { arguments: this.deps.redactions.redactValue(admission.recordedParsed) } : {};
    run.at('validate', { tier: manifest.tier, ...parsedFromText });
    const input = validateInput(entry, args);
    if (input instanceof StepFailure) return run.fail('rejected', input.step, input.error);

    run.at('capability');
    const capability = checkCapabilities(manifest, input, this.deps.grants, this.deps.workspace);
    run.audit('capability', capability instanceof StepFailure ? { allowed: false, error: capability.error } : { allowed: true, ...capability });
    if (capability instanceof StepFailure) return run.fail('rejected', capability.step, capability.error);

    // Known before anyone is asked: a placeholder that names no secret refuses the call now.
    const resolved = await resolveSecrets(entry, input, this.deps.secrets);
    if (resolved instanceof StepFailure) return run.fail('rejected', resolved.step, resolved.error);

    run.at('policy');
    // Counted before the rules look at the files: a program that ends while they do may have changed them.
    const programsEnded = this.deps.scheduler.programsEnded();
    const judged = effectiveTier(manifest, this.deps.sandbox);
    const judgedManifest = judged.raisedBecause ? { ...manifest, tier: judged.tier } : manifest;
    // Prepared first (a shell line is parsed), so the rules judge each of its sub-commands.
    const decision = mustAsk(
      entry,
      askForSecrets(await decideCall(this.deps.policy, judgedManifest, input, { agentSession: run.agentSession }), manifest.name, resolved.secrets),
    );
    // The tier the call was judged at (raised without a sandbox, or by its arguments), for the audit explorer.
    const judgedTier = callTier(judgedManifest, input).tier;
    run.audit('policy', { ...decision, tier: judgedTier, ...(judged.raisedBecause ? { tierRaised: judged.raisedBecause } : {}) });
    run.at('policy', { decidedBy: deciderOf(decision) });
    if (decision.decision === 'deny') {
      return run.fail('rejected', 'policy', {
        code: 'EDENIED',
        message: `denied by policy: ${decision.reason}`,
        details: { rule: decision.rule, ...(decision.provenance ? { provenance: decision.provenance } : {}) },
      });
    }
    // A call that names files is judged again at its turn if they may have changed (steps/judgedAgain.ts).
    const judgeAgain = async (judgedInput: unknown) =>
      mustAsk(entry, askForSecrets(await decideCall(this.deps.policy, judgedManifest, judgedInput, { agentSession: run.agentSession, again: decision.decision }), manifest.name, resolved.secrets));
    const judgment = (judgedInput: unknown, revised: boolean): Judgment | undefined =>
      manifest.pathArguments.length === 0 ? undefined : { decision, programsEnded, askedPerson: decision.decision === 'ask', revised, judgeAgain: () => judgeAgain(judgedInput) };
    let approvedPreviewHash: string | undefined;
    if (decision.decision === 'ask') {
      const approval = await this.askPerson(run, entry, input, decision.rule, signal, judgedManifest, judgedTier, resolved, onAsked);
      if ('refusal' in approval) return run.fail('rejected', run.step, approval.refusal);
      // A person's edit runs instead of the agent's call, bound to the edited call's own preview.
      if (approval.revised) return this.execute(run, entry, approval.revised.input, approval.revised.resolved, approval.revised.previewHash, signal, onProgress, undefined, judgment(approval.revised.input, true));
      approvedPreviewHash = approval.approvedPreviewHash;
    }
    return this.execute(run, entry, input, resolved, approvedPreviewHash, signal, onProgress, undefined, judgment(input, false));
  }

  /** Shows the call to a person and waits; returns why it may not run, or the hash of the preview they approved. */
  private async askPerson(
    run: CallRun,
    entry: RegisteredTool,
    input: unknown,
    rule: string,
    signal: AbortSignal | undefined,
    judgedManifest: ToolManifest,
    /** The tier the call was judged at (raised without a sandbox, or by its arguments): what the prompt shows. */
    tier: SecurityTier,
    { secrets, warning }: ResolvedInput,
    onAsked: CallOptions['onAsked'],
  ): Promise<{ refusal: ToolError } | { approvedPreviewHash?: string; revised?: RevisedCall }> {
    const { manifest } = entry.tool;
    // A full queue refuses at once: no dry run is spent on a prompt that could not be shown.
    const full = this.deps.approvals.quotaRefusal(run.agentSession);
    if (full) {
      run.step = 'approval';
      return { refusal: full.toToolError() };
    }
    run.at('preview');
    const preview = entry.external ? await entry.external.preview(input) : await preparePreview(this.deps.pool, entry, input, run.callId, this.deps.workspace, this.deps.redactions.hiddenFrom(entry));
    if (preview instanceof StepFailure) return { refusal: preview.error };
    run.step = 'approval';
    const binding = bindingHash(manifest, input);
    const previewHash = preview.kind === 'none' ? undefined : hashCanonical(preview);
    // A suggestion is a convenience: a policy that cannot make one leaves the prompt without it.
    const suggestedRules = (await this.deps.policy.suggestRules?.(manifest, input).catch(() => undefined)) ?? [];
    const shown = this.deps.redactions.redactValue(recordedArguments(input));
    const revision = revisionSubject(run, entry, input, shown, preview, judgedManifest, secrets);
    let asked: ReturnType<ApprovalQueue['ask']>;
    try {
      asked = this.deps.approvals.ask({
        callId: run.callId,
        tool: manifest.name,
        toolVersion: manifest.version,
        tier,
        rule,
        ...run.who(),
        // The console is shown a bounded form; the binding hash covers the whole input.
        arguments: shown,
        // A file that already holds a secret shows its placeholder in the diff; the hashes cover the real preview.
        preview: this.deps.redactions.redactValue(preview),
        bindingHash: binding,
        ...this.deps.effects?.promptNote(manifest, input, entry.external !== undefined),
        ...(secrets.length > 0 ? { secrets, ...(warning ? { secretsWarning: warning } : {}) } : {}),
        ...(suggestedRules.length > 0 ? { suggestedRules } : {}),
        ...(revision ? { editable: { arguments: true, content: contentEditable(revision) } } : {}),
      }, { manifest, input, ...(revision ? { reviser: this.reviserFor(revision) } : {}) });
    } catch (error) {
      // The queue filled while the preview was made.
      if (error instanceof GateError) return { refusal: error.toToolError() };
      throw error;
    }
    const { request, outcome } = asked;
    run.askedPerson(request, {
      bindingHash: binding,
      ...(previewHash ? { previewHash } : {}),
      preview: preview.kind === 'diff' ? { kind: 'diff', path: preview.path, ...countDiffLines(preview.unified) } : preview,
    });
    onAsked?.();
    // The signal says whether the agent cancelled the call or left altogether (its connection closed).
    const withdraw = () => this.deps.approvals.withdraw(request.approvalId, withdrawalReason(signal));
    if (signal?.aborted) withdraw();
    signal?.addEventListener('abort', withdraw, { once: true });
    const { revised, ...decided } = await outcome.finally(() => signal?.removeEventListener('abort', withdraw));
    run.audit('approval-decided', revised ? { ...decided, edit: this.recordedEdit(manifest, shown, revised) } : decided);
    run.at('approval', {
      decidedBy: deciderOfOutcome(decided.outcome, decided.reason, revised !== undefined && decided.outcome === 'approved'),
      waitedMs: CallRun.waitedSince(request),
      ...(revised ? { arguments: this.deps.redactions.redactValue(recordedArguments(revised.input)) } : {}),
    });
    if (decided.outcome !== 'approved') {
      const why = {
        expired: `no one approved it in time (${decided.reason})`,
        withdrawn: `the call was withdrawn: ${decided.reason}`,
        denied: decided.tellAgent !== undefined ? `a person denied it and says:\n${decided.tellAgent}` : `a person denied it: ${decided.reason}`,
      }[decided.outcome];
      return { refusal: { code: 'EDENIED', message: `${manifest.name} was not run: ${why}`, details: { outcome: decided.outcome, ...(decided.tellAgent !== undefined ? { tellAgent: decided.tellAgent } : {}) } } };
    }
    if (bindingHash(manifest, input) !== binding) {
      return { refusal: { code: 'EDENIED', message: 'the call changed after it was approved; it was not run' } };
    }
    if (revised) {
      // A call refused before it runs tells the agent only why: nothing of the edit was written.
      if (revised.stale) return { refusal: { code: 'EDENIED', message: `${manifest.name} was not run: ${revised.stale}` } };
      run.edited = revised.summary;
      return { revised };
    }
    return previewHash ? { approvedPreviewHash: previewHash } : {};
  }

  /** Checks a person's edits of one prompt's call with this gate's policy, grants and tool processes. */
  private reviserFor(subject: RevisionSubject) {
    const deps = { pool: this.deps.pool, policy: this.deps.policy, secrets: this.deps.secrets, grants: this.deps.grants, workspace: this.deps.workspace };
    return { check: (edit: CallEdit) => checkEdit(deps, subject, edit), revise: (edit: CallEdit) => reviseCall(deps, subject, edit) };
  }

  /** What the audit keeps of an edit: who made it, the call's arguments as they came and as edited, and the edited call's binding. */
  private recordedEdit(manifest: ToolManifest, original: unknown, revised: RevisedCall): unknown {
    return {
      by: 'person',
      original,
      edited: this.deps.redactions.redactValue(recordedArguments(revised.input)),
      ...revised.summary,
      bindingHash: bindingHash(manifest, revised.input),
      ...(revised.previewHash ? { previewHash: revised.previewHash } : {}),
      policy: { decision: revised.policy.decision, rule: revised.policy.rule },
      ...(revised.stale ? { stale: revised.stale } : {}),
    };
  }

  /**
   * Runs the approved call in a tool process when the scheduler gives it its turn, then turns the
   * outcome into the result: secrets redacted, output checked, canonicalized, hashed and capped.
   */
  private async execute(
    run: CallRun,
    entry: RegisteredTool,
    input: unknown,
    resolved: ResolvedInput,
    approvedPreviewHash: string | undefined,
    signal: AbortSignal | undefined,
    onProgress?: CallOptions['onProgress'],
    /** Bytes of output the result carries; past it, its head as text (the tool's own bound unless told). */
    outputCap = entry.tool.manifest.bounds.maxOutputBytes,
    /** What the rules decided, to judge the call again at its turn if its files may have changed since. */
    judgment?: Judgment,
  ): Promise<ToolResult> {
    const { manifest } = entry.tool;
    const profile = profileFor(manifest.sideEffects, false);
    const mutating = mutatingEffects(manifest.sideEffects).length > 0;
    // Only a tool that stays on this machine and changes nothing may run before its steps are in the
    // log (they are written at its end, the whole call in one record): one that reaches the network
    // could send data out (a GET's URL is enough). A built-in's word for it is taken where its tool
    // process's sandbox holds it to that (no network, the workspace read-only), which it does for a
    // tool declaring only reads. An upstream server the gate runs with no network and nothing writable
    // can do no more than read whatever its tools' class says, so its calls need no word. Any other
    // runs after a write-ahead record of its steps so far.
    const staysLocal = entry.external
      ? entry.external.staysLocal?.() === true
      : this.deps.sandbox.kind !== 'none' && manifest.sideEffects.every((effect) => LOCAL_READS.has(effect));
    run.at('queued');
    let outcome;
    let refusedAtTurn: ToolError | undefined;
    try {
      outcome = await this.deps.scheduler.run(
        {
          tool: manifest.name,
          exclusive: mutating,
          maxConcurrent: manifest.bounds.maxConcurrent,
          signal,
          // An upstream server that may write files changes them as a program started through the gate does.
          startsPrograms: manifest.sideEffects.includes('ProcessSpawn') || entry.external?.changesFiles?.() === true,
          namesPaths: !entry.external && manifest.pathArguments.length > 0,
        },
        async () => {
          if (judgment) {
            refusedAtTurn = await judgedAgain(judgment, this.deps.scheduler.programsEnded());
            if (refusedAtTurn) return { ok: false as const, error: refusedAtTurn };
          }
          run.at('execute', { status: 'running' });
          run.startRunning();
          run.audit(
            'started',
            {
              tool: manifest.name,
              version: manifest.version,
              // The audit's WebAssembly BLAKE3: the same hash as hashCanonical's, about 5× faster on a small input.
              inputHash: fastBlake3Hex(canonicalize(input)),
              ...(entry.external ? (isUpstream(entry) ? { upstream: true } : { inGate: true }) : { sandbox: this.deps.sandbox.kind, ...profile }),
              ...(resolved.secrets.length > 0 ? { secrets: resolved.secrets } : {}),
            },
            { mayRunFirst: staysLocal },
          );
          // No tool that changes anything or reaches the network runs ahead of its write-ahead record:
          // a gate killed while it runs leaves the call open in the log. One that only reads this
          // machine runs at once; its answer still waits for its record (see stoppable()).
          if (!staysLocal) await this.deps.audit.durable();
          this.deps.redactions.set(run.callId, resolved.values);
          if (entry.external) {
            // An upstream tool classed as writing files: what it changes in the workspace is recorded like a built-in's.
            const upstreamWatch = this.deps.effects?.beginUpstream(manifest, resolved.input);
            const ranUpstream = entry.external.run(resolved.input, {
              callId: run.callId,
              signal,
              timeoutMs: manifest.bounds.timeoutMs,
              ...(approvedPreviewHash ? { approvedPreviewHash } : {}),
              ...(onProgress ? { onProgress } : {}),
              ...run.who(),
              onLog: (line: ToolLogLine) => this.deps.logs.deliver(run.callId, line),
            });
            prepareWhileItRuns(run);
            return ranUpstream.finally(async () => (run.effects = await upstreamWatch?.end()));
          }
          // A built-in file tool matches the files as the redactor shows them (search_files, edit_file).
          const hidden = this.deps.redactions.hiddenFrom(entry);
          // Inside the scheduler's turn: no other call that changes files runs until its effects are
          // recorded. The workspace is looked at once the tool's process is taken, while a fresh one starts.
          let watch: EffectsWatch | undefined;
          const ran = this.deps.pool.run(
            {
              callId: run.callId,
              tool: manifest.name,
              module: entry.module,
              input: resolved.input,
              ...(resolved.secrets.length > 0 ? { previewInput: input } : {}),
              context: {
                workspace: this.deps.workspace,
                dryRun: false,
                ...(approvedPreviewHash ? { approvedPreviewHash } : {}),
                ...(hidden.length > 0 ? { hiddenSecrets: hidden } : {}),
                ...(resolved.own?.length ? { secrets: resolved.own } : {}),
              },
            },
            { timeoutMs: manifest.bounds.timeoutMs, maxMemoryMb: manifest.bounds.maxMemoryMb, startsNothing: runsOnlyGateCode(entry.module, manifest), mayShare: mayShareProcess(entry.module, manifest) },
            profile,
            signal,
            () => (watch = this.deps.effects?.begin(manifest.name, resolved.input)),
          );
          prepareWhileItRuns(run);
          return ran.finally(async () => (run.effects = await watch?.end()));
        },
      );
    } catch (error) {
      const code = (error as { code?: ToolError['code'] }).code ?? 'ECRASH';
      return run.fail('failed', run.step === 'queued' ? 'queued' : 'execute', { code, message: (error as Error).message });
    } finally {
      this.deps.redactions.delete(run.callId);
    }
    if (refusedAtTurn) return run.fail('rejected', 'policy', refusedAtTurn);
    const usage = outcome.usage ? { peakMemoryMb: Math.round(outcome.usage.peakResidentBytes / 2 ** 20), peakProcesses: outcome.usage.peakProcesses } : undefined;
    if (!outcome.ok) {
      const error = this.deps.redactions.redactValue(outcome.error);
      const message = utf8Prefix(error.message, manifest.bounds.maxOutputBytes);
      return run.fail('failed', 'execute', { ...error, message }, usage);
    }
    run.step = 'output';
    // Every known secret, not only this call's: a file another call wrote one into, read back here.
    const normalized = normalizeOutput(entry, this.deps.redactions.redactValue(outcome.data));
    if (normalized instanceof StepFailure) return run.fail('failed', normalized.step, normalized.error, usage);
    const shown = capOutput(normalized.data, normalized.canonical, outputCap);
    // An upstream server's result (and a gate-served one's: web pages, other agents' notes) is checked for text aimed at the model (secrets already out of it): told, never changed.
    const findings = entry.external?.resultFindings(normalized.data);
    run.audit('completed', {
      responseHash: normalized.responseHash,
      bytes: shown.originalBytes,
      durationMs: run.elapsedMs(),
      ...(shown.truncated ? { truncated: true } : {}),
      ...(usage ? { usage } : {}),
      ...(findings?.length ? { findings } : {}),
      ...(run.effects ? { effects: run.effects } : {}),
      output:
        shown.originalBytes <= AUDIT_OUTPUT_BYTES
          ? normalized.data
          : { head: utf8Prefix(normalized.canonical, AUDIT_OUTPUT_BYTES), bytes: shown.originalBytes, cut: true },
    });
    return run.finish({ ok: true, data: shown.data }, normalized.responseHash, 'completed', 'completed', shown.truncated, isUpstream(entry), findings);
  }
}

/**
 * Once a tool has its call, the call's steps so far are canonicalized while the gate waits for it
 * (after this turn, so the call reaches the tool first): its record at the end is then made of them
 * at once, and the agent's answer waits only for the last step's.
 */
function prepareWhileItRuns(run: CallRun): void {
  setImmediate(() => run.prepareKept());
}
