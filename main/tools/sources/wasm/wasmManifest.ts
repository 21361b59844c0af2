import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../../../shared/errors';
import { isInside } from '../../workspacePath';
import { manifestFolder, type ManifestFile } from '../manifestFile';

/** Fuel one call gets when the manifest names none: about a second of tight loops. */
export const DEFAULT_FUEL = 100_000_000;
/** The most fuel a manifest may give one call (the tool's timeoutMs still ends a call that takes too long). */
export const MAX_FUEL = 10_000_000_000;
/** Memory a module may grow to when the manifest names no cap: 16 pages of 64 KiB, 1 MiB. */
export const DEFAULT_MEMORY_PAGES = 16;
/** The largest cap a manifest may set: 4096 pages, 256 MiB. */
export const MAX_MEMORY_PAGES = 4096;
/** The largest module loaded: far above any tool's, well below what would strain the gate to compile. */
export const MAX_MODULE_BYTES = 64 * 1024 * 1024;
/** One WebAssembly page. */
export const PAGE_BYTES = 65_536;

/** The `source` of a WASM tool's manifest. */
export const WasmSourceSchema = z
  .object({
    /** Always 'wasm'. */
    kind: z.literal('wasm'),
    /** The .wasm file, relative to the manifest's folder and inside it. */
    module: z.string().min(1),
    /** Fuel units one call may use: one per function entry, function exit and loop iteration. */
    fuel: z.number().int().positive().max(MAX_FUEL).default(DEFAULT_FUEL),
    /** The most 64 KiB pages the module's memory may hold. */
    memoryPages: z.number().int().positive().max(MAX_MEMORY_PAGES).default(DEFAULT_MEMORY_PAGES),
    /** The module's SHA-256 (hex): a module that no longer matches is refused. */
    sha256: z
      .string()
      .regex(/^[0-9a-f]{64}$/, 'a SHA-256 in lowercase hex (64 characters), e.g. from `sha256sum tool.wasm`')
      .optional(),
  })
  .strict();
export type WasmSource = z.infer<typeof WasmSourceSchema>;

/** A WASM tool's module as read from disk, with the limits it runs under. */
export interface WasmModuleFile {
  source: WasmSource;
  /** Absolute path of the .wasm. */
  path: string;
  bytes: Uint8Array;
  /** Names the tool and its module in messages. */
  label: string;
}

/** Reads and checks a manifest's `source` and the module it names (inside the manifest's folder, matching its pin). */
export async function readWasmModule(manifest: ManifestFile, manifestPath: string): Promise<WasmModuleFile> {
  const parsed = WasmSourceSchema.safeParse(manifest.source);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GateError('EVALIDATION', `tool manifest ${manifestPath}: source.${issue.path.join('.') || 'kind'}: ${issue.message}`);
  }
  const source = parsed.data;
  const folder = manifestFolder(manifestPath);
  const path = resolve(folder, source.module);
  const label = `WASM tool ${manifest.name} (${source.module})`;
  // The tool process's sandbox makes only the manifest's folder readable, and a review covers that folder.
  if (!isInside(folder, path)) {
    throw new GateError('EVALIDATION', `${label}: source.module must name a file inside the manifest's folder ${folder}`);
  }
  let bytes: Uint8Array;
  try {
    const { size } = await stat(path);
    if (size > MAX_MODULE_BYTES) throw new Error(`it is ${size} bytes, more than the ${MAX_MODULE_BYTES} a WASM tool may be`);
    bytes = new Uint8Array(await readFile(path));
  } catch (error) {
    throw new GateError('EVALIDATION', `${label}: the module ${path} could not be read: ${(error as Error).message}; build it or fix source.module`);
  }
  if (source.sha256 !== undefined) {
    const actual = createHash('sha256').update(bytes).digest('hex');
    if (actual !== source.sha256) {
      throw new GateError(
        'EVALIDATION',
        `${label}: the module's SHA-256 is ${actual}, not the ${source.sha256} its manifest pins; review the new module and update source.sha256`,
      );
    }
  }
  return { source, path, bytes, label };
}
