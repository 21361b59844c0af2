import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../../shared/errors';
import { defineTool, type DefinedTool, type ToolContext } from '../../registry/defineTool';
import {
  CapabilitySchema,
  DeterminismSchema,
  JsonSchemaSchema,
  ResourceBoundsSchema,
  SecurityTierSchema,
  SideEffectSchema,
  TierEscalationSchema,
} from '../../../shared/manifest';

/**
 * What every tool manifest file declares, whatever runs it: the same declarations as a tool written
 * with defineTool, with its schemas as JSON Schema, and `source` saying what runs (read by the
 * source's own loader).
 */
export const ManifestFileSchema = z.object({
  name: z.string(),
  version: z.string().default('1.0.0'),
  description: z.string(),
  tier: SecurityTierSchema,
  sideEffects: z.array(SideEffectSchema).default([]),
  determinism: DeterminismSchema.default('Deterministic'),
  capabilities: z.array(CapabilitySchema).default([]),
  bounds: ResourceBoundsSchema.partial().default({}),
  pathArguments: z.array(z.string()).optional(),
  urlArguments: z.array(z.string()).optional(),
  escalations: z.array(TierEscalationSchema).optional(),
  inputSchema: JsonSchemaSchema,
  outputSchema: JsonSchemaSchema.default({}),
  source: z.looseObject({ kind: z.enum(['wasm', 'subprocess', 'http']) }),
});
export type ManifestFile = z.infer<typeof ManifestFileSchema>;

/** What a source gives for one manifest: the code that runs in the tool process. */
export interface SourceRunner {
  execute(input: unknown, context: ToolContext): Promise<unknown> | unknown;
  initialize?: DefinedTool['initialize'];
}

/** A source's loader: checks its own part of the manifest (`source`) and prepares the runner. */
export type SourceLoader = (manifest: ManifestFile, manifestPath: string) => Promise<SourceRunner>;

// Each source's code is loaded only when a manifest names it.
const SOURCES: Record<ManifestFile['source']['kind'], () => Promise<SourceLoader>> = {
  wasm: async () => (await import('./wasm/wasmSource')).loadWasmSource,
  subprocess: async () => (await import('./subprocessSource')).loadSubprocessSource,
  http: async () => (await import('./httpSource')).loadHttpSource,
};

/** Whether a tool module path names a manifest file rather than an ES module. */
export function isManifestFile(path: string): boolean {
  return path.endsWith('.json');
}

/** The tool a manifest file describes, ready to register (in the gate) or run (in a tool process). */
export async function loadManifestTool(manifestPath: string): Promise<DefinedTool> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(manifestPath, 'utf8'));
  } catch (error) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath} could not be read: ${(error as Error).message}`);
  }
  const parsed = ManifestFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: ${issue.path.join('.') || 'manifest'}: ${issue.message}`);
  }
  const manifest = parsed.data;
  const runner = await (await SOURCES[manifest.source.kind]())(manifest, manifestPath);
  return defineTool({
    name: manifest.name,
    version: manifest.version,
    description: manifest.description,
    tier: manifest.tier,
    sideEffects: manifest.sideEffects,
    determinism: manifest.determinism,
    capabilities: manifest.capabilities,
    bounds: manifest.bounds,
    ...(manifest.pathArguments ? { pathArguments: manifest.pathArguments } : {}),
    ...(manifest.urlArguments ? { urlArguments: manifest.urlArguments } : {}),
    ...(manifest.escalations ? { escalations: manifest.escalations } : {}),
    input: jsonSchemaToZod(manifest.inputSchema, manifestPath, 'inputSchema'),
    output: jsonSchemaToZod(manifest.outputSchema, manifestPath, 'outputSchema'),
    execute: runner.execute,
    ...(runner.initialize ? { initialize: runner.initialize } : {}),
  });
}

/** The folder a manifest's relative paths (module, program) are read from. */
export function manifestFolder(manifestPath: string): string {
  return dirname(manifestPath);
}

function jsonSchemaToZod(schema: Record<string, unknown>, manifestPath: string, field: string): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch (error) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: ${field} is not a JSON Schema zod can read: ${(error as Error).message}`);
  }
}
