import { randomUUID } from 'node:crypto';
import type { AuditKind } from '../../shared/audit';
import type { CallRequest, CallSource } from '../../shared/call';
import { canonicalize } from '../../shared/canonicalJson';
import type { ToolError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { Capability, ToolManifest } from '../../shared/manifest';
import type { ToolResult } from '../../shared/result';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import type { ToolProcessPool } from '../hosts/toolProcessPool';
import { decideSafely, type Policy } from '../policy/tierPolicy';
import type { RegisteredTool, ToolRegistry } from '../registry/registry';
import type { CallTracker } from './callTracker';
import { checkCapabilities } from './steps/checkCapabilities';
import { lookupTool } from './steps/lookupTool';
import { normalizeOutput } from './steps/normalizeOutput';
import { parseArguments } from './steps/parseArguments';
import { countDiffLines, preparePreview } from './steps/preparePreview';
import { StepFailure } from './steps/stepFailure';
import { validateInput } from './steps/validateInput';

/** Where the executor writes its audit records. */
export interface AuditSink {
  append(entry: { callId: string; kind: AuditKind; payload: unknown }): unknown;
}

/** Everything the pipeline needs, injected so each piece can be tested alone. */
export interface ExecutorDeps {
  registry: ToolRegistry;
  pool: ToolProcessPool;
  audit: AuditSink;
  approvals: ApprovalQueue;
  policy: Policy;
  calls: CallTracker;
  /** Real path of the workspace root. */
  workspace: string;
  /** Capabilities the gate grants to tools. */
  grants: readonly Capability[];
}

/** The hash an approval is bound to: this tool's manifest and these exact arguments. */
export function bindingHash(manifest: ToolManifest, input: unknown): string {
  return hashCanonical({ manifest: hashCanonical(manifest), arguments: input });
}

/** One call going through the pipeline: its id, clock and audit trail. */
class CallRun {
  readonly callId = randomUUID();
  readonly startedAt = new Date();
  private readonly started = performance.now();

  constructor(
    private readonly deps: ExecutorDeps,
    readonly tool: string,
    readonly source: CallSource,
  ) {}

  audit(kind: AuditKind, payload: unknown): void {
    this.deps.audit.append({ callId: this.callId, kind, payload });
  }

  elapsedMs(): number {
    return Math.round((performance.now() - this.started) * 1000) / 1000;
  }

  /** Ends the call with an error: audits it as the terminal record and builds the result. */
  fail(kind: 'rejected' | 'failed', step: string, error: ToolError): ToolResult {
    const responseHash = hashCanonical(error);
    this.audit(kind, { step, error, responseHash, durationMs: this.elapsedMs() });
    return this.finish({ ok: false, error }, responseHash, kind === 'rejected' ? 'rejected' : 'failed', step);
  }

  finish(outcome: { ok: boolean; data?: unknown; error?: ToolError }, responseHash: string, status: 'completed' | 'rejected' | 'failed', step: string): ToolResult {
    const endedAt = new Date();
    const durationMs = this.elapsedMs();
    this.deps.calls.update(this.callId, {
      status,
      step,
      endedAt: endedAt.toISOString(),
      durationMs,
      responseHash,
      ...(outcome.ok ? { data: outcome.data } : { error: outcome.error }),
    });
    return {
      ...outcome,
      meta: { callId: this.callId, startedAt: this.startedAt.toISOString(), endedAt: endedAt.toISOString(), durationMs, responseHash },
    };
  }
}

/**
 * The gate's pipeline: lookup → validate → capability → policy → approval → tool process →
 * output check → canonical JSON + BLAKE3 → result. Each step writes its audit record; every call
 * ends with exactly one of completed, failed or rejected. A tool's failure is a result, never a throw.
 */
export class Executor {
  constructor(private readonly deps: ExecutorDeps) {}

  /** Runs one call through the whole pipeline. */
  async call(request: CallRequest): Promise<ToolResult> {
    const run = new CallRun(this.deps, request.tool, request.source ?? 'test');
    this.deps.calls.start({
      callId: run.callId,
      tool: request.tool,
      arguments: request.arguments,
      source: run.source,
      status: 'checking',
      step: 'invoked',
      startedAt: run.startedAt.toISOString(),
    });
    run.audit('invoked', { tool: request.tool, source: run.source, arguments: request.arguments ?? null });

    const args = parseArguments(request.arguments);
    if (args instanceof StepFailure) return run.fail('rejected', args.step, args.error);
    const entry = lookupTool(this.deps.registry, request.tool);
    if (entry instanceof StepFailure) return run.fail('rejected', entry.step, entry.error);
    const { manifest } = entry.tool;
    this.deps.calls.update(run.callId, { tier: manifest.tier, arguments: args, step: 'validate' });
    const input = validateInput(entry, args);
    if (input instanceof StepFailure) return run.fail('rejected', input.step, input.error);

    const capability = checkCapabilities(manifest, input, this.deps.grants, this.deps.workspace);
    run.audit('capability', capability instanceof StepFailure ? { allowed: false, error: capability.error } : { allowed: true, ...capability });
    if (capability instanceof StepFailure) return run.fail('rejected', capability.step, capability.error);

    const decision = decideSafely(this.deps.policy, manifest, input);
    run.audit('policy', decision);
    if (decision.decision === 'deny') {
      return run.fail('rejected', 'policy', { code: 'EDENIED', message: `denied by policy: ${decision.reason}`, details: { rule: decision.rule } });
    }
    let approvedPreviewHash: string | undefined;
    if (decision.decision === 'ask') {
      const approval = await this.askPerson(run, entry, input, decision.rule);
      if ('refusal' in approval) return run.fail('rejected', 'approval', approval.refusal);
      approvedPreviewHash = approval.approvedPreviewHash;
    }
    return this.execute(run, entry, input, approvedPreviewHash);
  }

  /** Shows the call to a person and waits; returns why it may not run, or the hash of the preview they approved. */
  private async askPerson(
    run: CallRun,
    entry: RegisteredTool,
    input: unknown,
    rule: string,
  ): Promise<{ refusal: ToolError } | { approvedPreviewHash?: string }> {
    const { manifest } = entry.tool;
    this.deps.calls.update(run.callId, { step: 'preview' });
    const preview = await preparePreview(this.deps.pool, entry, input, run.callId, this.deps.workspace);
    const binding = bindingHash(manifest, input);
    const previewHash = preview.kind === 'none' ? undefined : hashCanonical(preview);
    const { request, outcome } = this.deps.approvals.ask({
      callId: run.callId,
      tool: manifest.name,
      toolVersion: manifest.version,
      tier: manifest.tier,
      rule,
      arguments: input,
      preview,
      bindingHash: binding,
    });
    run.audit('approval-requested', {
      approvalId: request.approvalId,
      bindingHash: binding,
      ...(previewHash ? { previewHash } : {}),
      expiresAt: request.expiresAt,
      preview: preview.kind === 'diff' ? { kind: 'diff', path: preview.path, ...countDiffLines(preview.unified) } : preview,
    });
    this.deps.calls.update(run.callId, { status: 'awaiting-approval', step: 'approval', approvalId: request.approvalId });
    const decided = await outcome;
    run.audit('approval-decided', decided);
    if (decided.outcome !== 'approved') {
      const why = decided.outcome === 'expired' ? `no one approved it in time (${decided.reason})` : `a person denied it: ${decided.reason}`;
      return { refusal: { code: 'EDENIED', message: `${manifest.name} was not run: ${why}`, details: { outcome: decided.outcome } } };
    }
    if (bindingHash(manifest, input) !== binding) {
      return { refusal: { code: 'EDENIED', message: 'the call changed after it was approved; it was not run' } };
    }
    return previewHash ? { approvedPreviewHash: previewHash } : {};
  }

  /** Runs the approved call in a tool process and turns its outcome into the result. */
  private async execute(run: CallRun, entry: RegisteredTool, input: unknown, approvedPreviewHash?: string): Promise<ToolResult> {
    const { manifest } = entry.tool;
    this.deps.calls.update(run.callId, { status: 'running', step: 'execute' });
    run.audit('started', { tool: manifest.name, version: manifest.version, inputHash: hashCanonical(input) });
    let outcome;
    try {
      outcome = await this.deps.pool.run(
        {
          callId: run.callId,
          tool: manifest.name,
          module: entry.module,
          input,
          context: { workspace: this.deps.workspace, dryRun: false, ...(approvedPreviewHash ? { approvedPreviewHash } : {}) },
        },
        manifest.bounds.timeoutMs,
      );
    } catch (error) {
      const code = (error as { code?: ToolError['code'] }).code ?? 'ECRASH';
      return run.fail('failed', 'execute', { code, message: (error as Error).message });
    }
    if (!outcome.ok) return run.fail('failed', 'execute', outcome.error);
    const normalized = normalizeOutput(entry, outcome.data);
    if (normalized instanceof StepFailure) return run.fail('failed', normalized.step, normalized.error);
    run.audit('completed', { responseHash: normalized.responseHash, bytes: normalized.canonical.length, durationMs: run.elapsedMs() });
    return run.finish({ ok: true, data: normalized.data }, normalized.responseHash, 'completed', 'completed');
  }
}

/** The canonical text of a result's data, as agents receive it. */
export function resultText(result: ToolResult): string {
  return result.ok ? canonicalize(result.data ?? null) : `${result.error?.code}: ${result.error?.message}`;
}
