import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { DEFAULT_BOUNDS, ToolManifestSchema, type ToolManifest } from '../../shared/manifest';
import type { ToolClass, UpstreamToolDefinition } from '../../shared/upstream';
import { deepFreeze, type DefinedTool } from '../registry/defineTool';
import { resultValidator } from './inputValidation';

/** Bytes of an upstream result returned to the agent before it is cut (the whole result is hashed and audited up to its cap). */
const UPSTREAM_OUTPUT_BYTES = 1024 * 1024;
/** How long one upstream call may run. */
export const UPSTREAM_TIMEOUT_MS = 120_000;

/**
 * An upstream tool's result as the executor's output step checks it: a tool that declares an
 * outputSchema must return structuredContent that conforms (MCP's rule), or the call fails with
 * ERUNTIME naming the value at fault, which the agent reads and the audit keeps.
 */
function structuredResult(definition: UpstreamToolDefinition & { outputSchema: Record<string, unknown> }): z.ZodType {
  return z.unknown().superRefine((data, context) => {
    const structured = (data as { structuredContent?: unknown } | null)?.structuredContent;
    if (structured === undefined) {
      context.addIssue({ code: 'custom', path: ['structuredContent'], message: 'absent, though the tool declares an outputSchema its result must conform to' });
      return;
    }
    let problem: string | undefined;
    try {
      problem = resultValidator(definition)(structured);
    } catch (error) {
      problem = `its outputSchema cannot be checked (${(error as Error).message})`;
    }
    if (problem !== undefined) context.addIssue({ code: 'custom', path: ['structuredContent'], message: `${problem} (against the outputSchema the server declares)` });
  });
}

/** The manifest the gate owns for an upstream tool, registered as `registeredAs`: its definition, judged at the class given. */
export function definedTool(registeredAs: string, definition: UpstreamToolDefinition, toolClass: ToolClass): DefinedTool {
  const manifest: ToolManifest = ToolManifestSchema.parse({
    name: registeredAs,
    version: '0.0.0',
    description: definition.description || definition.title || definition.name,
    tier: toolClass.tier,
    sideEffects: toolClass.sideEffects,
    determinism: 'NonDeterministic',
    capabilities: toolClass.capabilities ?? [],
    bounds: { ...DEFAULT_BOUNDS, timeoutMs: UPSTREAM_TIMEOUT_MS, maxOutputBytes: UPSTREAM_OUTPUT_BYTES },
    pathArguments: [],
    supportsDryRun: false,
    // An agent's `$ENV.NAME` never reaches a server that is not Toolgate's: the server's own
    // credentials come from its entry in servers.json.
    secrets: 'refuse',
    inputSchema: definition.inputSchema,
    outputSchema: definition.outputSchema ?? {},
  });
  return Object.freeze({
    manifest: deepFreeze(manifest),
    // Arguments are checked by the external runner against the server's JSON Schema.
    input: z.unknown(),
    output: definition.outputSchema ? structuredResult({ ...definition, outputSchema: definition.outputSchema }) : z.unknown(),
    execute: () => {
      throw new GateError('ERUNTIME', `${registeredAs} runs on its server, never in a tool process`);
    },
  });
}

