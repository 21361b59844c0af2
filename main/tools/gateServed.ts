import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import type { TextFinding } from '../../shared/upstream';
import { describeIssues } from '../executor/steps/validateInput';
import type { RunOutcome } from '../hosts/toolCall';
import type { DefinedTool } from '../registry/defineTool';
import type { ExternalRunContext, ExternalRunner } from '../registry/registry';

/**
 * What the gate does for a tool it serves itself. Toolgate's memory and web_search are served so:
 * their state (the notes database, the search provider's key) lives in the state folder, which no
 * tool process ever sees, and only the gate's own code touches it, with no path or URL from the
 * agent. The call still goes through the whole pipeline (validation, grants, policy, approval,
 * audit, output schema, cap), exactly as an upstream tool's does through its ExternalRunner.
 */
export interface GateServedBehaviour {
  /** What the person sees before deciding (the input is the tool's parsed input). */
  preview?(input: never): Preview | Promise<Preview>;
  /** Does the call; a GateError thrown is the call's failure with its code. */
  run(input: never, context: ExternalRunContext): unknown;
  /** Why it cannot be called now, if it cannot (no search provider set up). */
  unavailable?(): string | undefined;
  /** What in its result (secrets already out) may be aimed at the model: told, never acted on. */
  resultFindings?(data: unknown): TextFinding[];
}

/** A tool of Toolgate's own that the gate serves: its manifest and schemas, and what the gate does for it given its setting. */
export interface GateServedTool<Deps> {
  readonly tool: DefinedTool;
  serve(deps: Deps): GateServedBehaviour;
}

/** The definition's execute for a tool the gate serves: never called, as no tool process runs it. */
export function servedByGate(): never {
  throw new GateError('ERUNTIME', 'this tool is served by the gate itself and never runs in a tool process');
}

/**
 * The ExternalRunner the registry holds for a gate-served tool: arguments checked (and defaults
 * filled) by the tool's zod schema, the preview taken again before running and the call refused
 * when it differs from the one the person approved (the note to delete changed), every failure an
 * outcome.
 */
export function gateServedRunner(tool: DefinedTool, behaviour: GateServedBehaviour): ExternalRunner {
  const { name } = tool.manifest;
  const preview = async (input: unknown): Promise<Preview> => {
    if (!behaviour.preview) return { kind: 'none', reason: `${name} has no preview` };
    try {
      return await behaviour.preview(tool.input.parse(input) as never);
    } catch (error) {
      return { kind: 'none', reason: error instanceof Error ? error.message : String(error) };
    }
  };
  return {
    servedByGate: true,
    validate: (input) => {
      const parsed = tool.input.safeParse(input);
      return parsed.success ? undefined : describeIssues(parsed.error.issues).message;
    },
    preview,
    run: async (input, context): Promise<RunOutcome> => {
      try {
        if (context.signal?.aborted) throw new GateError('EDENIED', `${name} was stopped before it ran`);
        if (context.approvedPreviewHash !== undefined && hashCanonical(await preview(input)) !== context.approvedPreviewHash) {
          throw new GateError('EDENIED', `what ${name} would do changed after it was approved (another call got there first); it was not run`);
        }
        return { ok: true, data: await behaviour.run(tool.input.parse(input) as never, context) };
      } catch (error) {
        if (error instanceof GateError) return { ok: false, error: error.toToolError() };
        return { ok: false, error: { code: 'ERUNTIME', message: `${name} failed: ${error instanceof Error ? error.message : String(error)}` } };
      }
    },
    unavailable: () => behaviour.unavailable?.(),
    mustAsk: () => undefined,
    listed: () => true,
    resultFindings: (data) => behaviour.resultFindings?.(data) ?? [],
  };
}
