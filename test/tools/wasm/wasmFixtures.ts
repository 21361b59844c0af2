/**
 * WASM tools for the tests, built from WAT text with binaryen (never a checked-in binary): each is
 * written with its manifest into a folder of its own, ready for a gate's toolModules.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import binaryen from 'binaryen';
import { toolFeatures } from '../../../main/tools/sources/wasm/instrumentModule';

/** The sample tools the build compiles from tools/wasm/ (AssemblyScript). */
export const SAMPLE_TOOLS = {
  textStats: join(__dirname, '../../../out/tools/wasm/text_stats/manifest.json'),
  fileStats: join(__dirname, '../../../out/tools/wasm/file_stats/manifest.json'),
};

/** The binary of a module written in WAT. */
export function watToWasm(wat: string): Uint8Array {
  const module = binaryen.parseText(wat);
  try {
    module.setFeatures(toolFeatures(binaryen));
    if (!module.validate()) throw new Error('the test module does not validate');
    return module.emitBinary();
  } finally {
    module.dispose();
  }
}

/** What a test tool's manifest says beyond its name and module. */
export interface TestToolOptions {
  source?: Record<string, unknown>;
  manifest?: Record<string, unknown>;
}

/** Writes `<folder>/<name>/manifest.json` and its module; returns the manifest's path. */
export function writeWasmTool(folder: string, name: string, wat: string, options: TestToolOptions = {}): string {
  const dir = join(folder, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${name}.wasm`), watToWasm(wat));
  const manifest = {
    name,
    version: '1.0.0',
    description: `test WASM tool ${name}`,
    tier: 'SAFE',
    determinism: 'Pure',
    inputSchema: { type: 'object', properties: { spin: { type: 'boolean' }, path: { type: 'string' } }, additionalProperties: false },
    outputSchema: {},
    ...options.manifest,
    source: { kind: 'wasm', module: `${name}.wasm`, ...options.source },
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
  return join(dir, 'manifest.json');
}

/** The exports every tool has: one page of memory, `{"ok":true}` at 0, alloc handing out 1024. */
const ABI = `
  (memory (export "memory") 1)
  (data (i32.const 0) "{\\"ok\\":true}")
  (func (export "alloc") (param i32) (result i32) (i32.const 1024))`;

/** Loops forever when its input is longer than `{}` (e.g. {"spin":true}), else returns {"ok":true}. */
export const SPIN_WAT = `(module ${ABI}
  (func (export "run") (param i32 i32) (result i64)
    (if (i32.gt_u (local.get 1) (i32.const 2)) (then (loop $forever (br $forever))))
    (i64.const 11)))`;

/** Grows its memory by 100 pages when asked to spin, by 1 page otherwise; then returns {"ok":true}. */
export const GROW_WAT = `(module ${ABI}
  (func (export "run") (param i32 i32) (result i64)
    (if (i32.lt_s
          (memory.grow (select (i32.const 100) (i32.const 1) (i32.gt_u (local.get 1) (i32.const 2))))
          (i32.const 0))
      (then (unreachable)))
    (i64.const 11)))`;

/** Reads the file `path` names through the host, whatever its input says, and returns {"ok":true}. */
export function readingWat(path: string): string {
  return `(module
  (import "toolgate" "read_file" (func $read (param i32 i32) (result i64)))
  ${ABI}
  (data (i32.const 64) "${path}")
  (func (export "run") (param i32 i32) (result i64)
    (drop (call $read (i32.const 64) (i32.const ${Buffer.byteLength(path)})))
    (i64.const 11)))`;
}

/** Imports `module.name` as a function of no arguments and otherwise does nothing. */
export function importingWat(module: string, name: string): string {
  return `(module
  (import "${module}" "${name}" (func $imported))
  ${ABI}
  (func (export "run") (param i32 i32) (result i64) (call $imported) (i64.const 11)))`;
}

/** Fetches `url` through the host and returns the host's answer (http_fetch's result JSON) as its output. */
export function fetchingWat(url: string): string {
  return `(module
  (import "toolgate" "http_fetch" (func $fetch (param i32 i32) (result i64)))
  ${ABI}
  (data (i32.const 64) "${url}")
  (func (export "run") (param i32 i32) (result i64)
    (call $fetch (i32.const 64) (i32.const ${Buffer.byteLength(url)}))))`;
}

/** The manifest of a tool that fetches the URL its `url` argument names. */
export const FETCHING_MANIFEST = {
  tier: 'SAFE',
  determinism: 'NonDeterministic',
  sideEffects: ['NetRead'],
  capabilities: ['net:read'],
  urlArguments: ['url'],
  inputSchema: { type: 'object', properties: { url: { type: 'string' } }, required: ['url'], additionalProperties: false },
};

/** Writes `text` to the file `path` names through the host, whatever its input says, and returns {"ok":true}. */
export function writingWat(path: string, text: string): string {
  return `(module
  (import "toolgate" "write_file" (func $write (param i32 i32 i32 i32) (result i32)))
  ${ABI}
  (data (i32.const 64) "${path}")
  (data (i32.const 512) "${text}")
  (func (export "run") (param i32 i32) (result i64)
    (drop (call $write (i32.const 64) (i32.const ${Buffer.byteLength(path)}) (i32.const 512) (i32.const ${Buffer.byteLength(text)})))
    (i64.const 11)))`;
}

/** The manifest of a tool that writes inside the folder its `path` argument names. */
export const WRITING_MANIFEST = {
  tier: 'ELEVATED',
  determinism: 'Deterministic',
  sideEffects: ['FsWrite'],
  capabilities: ['fs:write'],
  pathArguments: ['path'],
};
