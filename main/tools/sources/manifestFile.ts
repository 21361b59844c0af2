import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
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
import { fileSha256, pinnedModule, sha256, splitPinnedModule } from './sourcePins';

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
  /** The absolute path of the program or module file that runs, whose hash a review pins (none for HTTP). */
  codeFile?: string;
  /** URLs the tool reaches whatever its input (an HTTP tool's endpoint): checked against the net grants per call. */
  endpoints?: string[];
  /** Secret names the manifest's own text sends (`$ENV.NAME` in an HTTP tool's headers). */
  secrets?: string[];
}

/** What the gate tells a source's loader: the pinned hash its code file must still have (tools home). */
export interface SourceLoadOptions {
  /** SHA-256 of the code file as reviewed; a loader that runs the file refuses it when it differs. */
  codeHash?: string;
}

/** A source's loader: checks its own part of the manifest (`source`) and prepares the runner. */
export type SourceLoader = (manifest: ManifestFile, manifestPath: string, options?: SourceLoadOptions) => Promise<SourceRunner>;

/** A manifest tool as the gate reads it: the tool, its manifest file's hash and its code file. */
export interface LoadedManifestTool {
  tool: DefinedTool;
  manifest: ManifestFile;
  /** SHA-256 of the manifest file's bytes as read. */
  manifestSha256: string;
  /** The program or module it runs (absent for HTTP tools). */
  codeFile?: string;
}

// Each source's code is loaded only when a manifest names it.
const SOURCES: Record<ManifestFile['source']['kind'], () => Promise<SourceLoader>> = {
  wasm: async () => (await import('./wasm/wasmSource')).loadWasmSource,
  subprocess: async () => (await import('./subprocessSource')).loadSubprocessSource,
  http: async () => (await import('./httpSource')).loadHttpSource,
};

/** Whether a tool module path names a manifest file (pinned or not) rather than an ES module. */
export function isManifestFile(module: string): boolean {
  return splitPinnedModule(module).path.endsWith('.json');
}

/**
 * The tool a manifest file describes, ready to register (in the gate) or run (in a tool process).
 * A pinned module path (see sourcePins) must still name the manifest and code file reviewed.
 */
export async function loadManifestTool(module: string): Promise<DefinedTool> {
  const { path, pins } = splitPinnedModule(module);
  const loaded = await readManifestTool(path, pins?.code === undefined ? {} : { codeHash: pins.code });
  if (pins && loaded.manifestSha256 !== pins.manifest) {
    throw new GateError(
      'EPERMISSION',
      `tool manifest ${path} changed since it was reviewed or the gate loaded it (sha256 ${loaded.manifestSha256}, pinned ${pins.manifest}); nothing was run. ` +
        `Review it with \`toolgate tools review ${loaded.manifest.name}\` (or restart the gate, for a manifest given with --tools)`,
    );
  }
  return loaded.tool;
}

/**
 * A manifest given with `--tools`: loaded once, and handed to tool processes pinned to the manifest
 * and code file as the gate read them, so a file changed while the gate runs (say by an agent, when
 * it lies in the workspace) is refused rather than run under the checks made for the old one.
 */
export async function loadPinnedManifestTool(manifestPath: string): Promise<{ tool: DefinedTool; module: string }> {
  if (!isAbsolute(manifestPath)) throw new GateError('EVALIDATION', `tool module ${manifestPath} must be an absolute path`);
  const loaded = await readManifestTool(manifestPath);
  const code = loaded.codeFile ? fileSha256(loaded.codeFile) : undefined;
  return { tool: loaded.tool, module: pinnedModule(manifestPath, { manifest: loaded.manifestSha256, ...(code ? { code } : {}) }) };
}

/** Reads, checks and loads one manifest file, with what a review pins of it. */
export async function readManifestTool(manifestPath: string, options: SourceLoadOptions = {}): Promise<LoadedManifestTool> {
  let raw: unknown;
  let bytes: Buffer;
  try {
    bytes = await readFile(manifestPath);
    raw = JSON.parse(bytes.toString('utf8'));
  } catch (error) {
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath} could not be read: ${(error as Error).message}`);
  }
  const parsed = ManifestFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: ${issue.path.join('.') || 'manifest'}: ${issue.message}`);
  }
  const manifest = parsed.data;
  const runner = await (await SOURCES[manifest.source.kind]())(manifest, manifestPath, options);
  const tool = defineTool({
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
    ...(runner.endpoints ? { endpoints: runner.endpoints } : {}),
    ...(runner.secrets ? { ownSecrets: runner.secrets } : {}),
    input: jsonSchemaToZod(manifest.inputSchema, manifestPath, 'inputSchema'),
    output: jsonSchemaToZod(manifest.outputSchema, manifestPath, 'outputSchema'),
    execute: runner.execute,
    ...(runner.initialize ? { initialize: runner.initialize } : {}),
  });
  const codeFile = runner.codeFile ?? declaredModule(manifest, manifestPath);
  return { tool, manifest, manifestSha256: sha256(bytes), ...(codeFile ? { codeFile } : {}) };
}

/** A WASM manifest's module file (source.module, relative to the manifest's folder), for its pin. */
function declaredModule(manifest: ManifestFile, manifestPath: string): string | undefined {
  const module = (manifest.source as { module?: unknown }).module;
  return manifest.source.kind === 'wasm' && typeof module === 'string' ? resolve(manifestFolder(manifestPath), module) : undefined;
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
