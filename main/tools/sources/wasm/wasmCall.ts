import { GateError } from '../../../../shared/errors';
import { FUEL_EXPORT, GROW_HOOK, INSTRUMENT_IMPORT_MODULE } from './instrumentModule';
import { HOST_MODULE } from './hostImports';
import type { WasmFileCalls } from './hostFiles';
import type { WasmNetCalls } from './hostNet';
import { PAGE_BYTES } from './wasmManifest';
import { wasmApi, type CompiledModule, type ImportObject, type LinearMemory, type WasmGlobal } from './webAssemblyApi';

/** The longest path a module may pass to a host call. */
const MAX_PATH_BYTES = 4096;
/** The longest URL a module may fetch, as http_fetch takes. */
const MAX_URL_BYTES = 8192;
/** The longest message a module may fail with. */
const MAX_MESSAGE_BYTES = 4096;

/** What one call of a WASM tool runs with. */
export interface WasmCallSetup {
  /** The instrumented, compiled module (one per tool process). */
  module: CompiledModule;
  /** Names the tool in messages. */
  label: string;
  /** The fuel budget the module was instrumented with. */
  fuel: number;
  /** The memory cap in pages. */
  memoryPages: number;
  /** The file host calls for this call. */
  files: WasmFileCalls;
  /** The network host call for this call. */
  net: WasmNetCalls;
}

/** What a finished call used, for the call's log. */
export interface WasmUsage {
  fuelUsed: number;
  pages: number;
}

interface ToolExports {
  memory: LinearMemory;
  alloc(size: number): number;
  run(pointer: number, length: number): unknown;
  [FUEL_EXPORT]: WasmGlobal;
}

/**
 * Runs one call in a fresh instance (nothing is left over from the call before, so a Pure tool
 * gives the same bytes for the same input): the input JSON goes in through `alloc`, `run` returns
 * the output JSON packed as (pointer << 32 | length). A budget run out ends the call with EQUOTA,
 * a refused host call with the refusal, even if the module catches the exception: the first
 * refusal is kept and thrown when the module returns.
 */
export function runWasmCall(setup: WasmCallSetup, input: unknown): { output: unknown; usage: WasmUsage } {
  const { label } = setup;
  let exports: ToolExports | undefined;
  let refusal: GateError | undefined;
  const refuse = (error: GateError): never => {
    refusal ??= error;
    throw error;
  };
  const memory = (): LinearMemory => exports!.memory;
  const host = (call: () => number | bigint): number | bigint => {
    try {
      return call();
    } catch (error) {
      return refuse(error instanceof GateError ? error : new GateError('ERUNTIME', `${label}: a host call failed: ${(error as Error).message}`));
    }
  };
  const imports: ImportObject = {
    [HOST_MODULE]: {
      fail: (pointer: number, length: number) =>
        host(() => {
          throw new GateError('ERUNTIME', `${label} failed: ${readText(memory(), pointer, length, MAX_MESSAGE_BYTES, label)}`);
        }),
      read_file: (pointer: number, length: number) =>
        host(() => {
          const bytes = setup.files.read(readText(memory(), pointer, length, MAX_PATH_BYTES, label), setup.memoryPages * PAGE_BYTES);
          return pack(place(exports!, bytes, label), bytes.length);
        }),
      write_file: (pathPointer: number, pathLength: number, pointer: number, length: number) =>
        host(() => setup.files.write(readText(memory(), pathPointer, pathLength, MAX_PATH_BYTES, label), view(memory(), pointer, length, label).slice())),
      http_fetch: (pointer: number, length: number) =>
        host(() => {
          const answer = new TextEncoder().encode(setup.net.fetch(readText(memory(), pointer, length, MAX_URL_BYTES, label)));
          return pack(place(exports!, answer, label), answer.length);
        }),
    },
    [INSTRUMENT_IMPORT_MODULE]: {
      [GROW_HOOK]: (_site: number, pages: number) =>
        host(() => {
          const current = memory().buffer.byteLength / PAGE_BYTES;
          if (current + (pages >>> 0) > setup.memoryPages) {
            throw new GateError(
              'EQUOTA',
              `${label} ran out of memory: it asked to grow from ${current} to ${current + (pages >>> 0)} pages, past its cap of ${setup.memoryPages} pages (source.memoryPages in its manifest)`,
              { budget: 'memoryPages', memoryPages: setup.memoryPages, asked: current + (pages >>> 0) },
            );
          }
          return pages;
        }),
    },
  };
  const fuelLeft = (): bigint => (exports ? (exports[FUEL_EXPORT].value as bigint) : 0n);
  try {
    const instance = new wasmApi.Instance(setup.module, imports);
    exports = instance.exports as unknown as ToolExports;
    const text = new TextEncoder().encode(JSON.stringify(input ?? null));
    const packed = exports.run(place(exports, text, label), text.length);
    if (refusal) throw refusal;
    if (typeof packed !== 'bigint') throw new GateError('ERUNTIME', `${label}: run must return an i64 (pointer << 32 | length), not ${typeof packed}`);
    const output = readText(memory(), Number(packed >> 32n), Number(packed & 0xffff_ffffn), Infinity, label);
    let parsed: unknown;
    try {
      parsed = JSON.parse(output);
    } catch (error) {
      throw new GateError('ERUNTIME', `${label} returned no valid JSON: ${(error as Error).message}`);
    }
    return { output: parsed, usage: { fuelUsed: setup.fuel - Number(fuelLeft()), pages: memory().buffer.byteLength / PAGE_BYTES } };
  } catch (error) {
    if (refusal) throw refusal;
    if (exports && fuelLeft() < 0n) {
      throw new GateError(
        'EQUOTA',
        `${label} ran out of fuel: it used its whole budget of ${setup.fuel} units (one per function entry, function exit and loop iteration; source.fuel in its manifest)`,
        { budget: 'fuel', fuel: setup.fuel },
      );
    }
    if (error instanceof GateError) throw error;
    if (error instanceof wasmApi.RuntimeError) throw new GateError('ERUNTIME', `${label} trapped: ${error.message}`);
    if (error instanceof wasmApi.LinkError) throw new GateError('EVALIDATION', `${label} does not fit the host's ABI: ${error.message}`);
    if (error instanceof RangeError) throw new GateError('ERUNTIME', `${label} failed: ${error.message} (too deep a recursion?)`);
    throw new GateError('ERUNTIME', `${label} failed: ${(error as Error).message}`);
  }
}

/** Asks the module for memory and copies bytes there; returns where. */
function place(exports: ToolExports, bytes: Uint8Array, label: string): number {
  const pointer = exports.alloc(bytes.length) >>> 0;
  view(exports.memory, pointer, bytes.length, label).set(bytes);
  return pointer;
}

function pack(pointer: number, length: number): bigint {
  return (BigInt(pointer) << 32n) | BigInt(length);
}

/** The bytes at pointer..pointer+length, refused when they leave the memory. */
function view(memory: LinearMemory, pointer: number, length: number, label: string): Uint8Array {
  const start = pointer >>> 0;
  const size = length >>> 0;
  if (start + size > memory.buffer.byteLength) {
    throw new GateError('ERUNTIME', `${label} passed bytes ${start}..${start + size}, past the end of its memory (${memory.buffer.byteLength} bytes)`);
  }
  return new Uint8Array(memory.buffer, start, size);
}

/** UTF-8 text at pointer..pointer+length, at most maxBytes. */
function readText(memory: LinearMemory, pointer: number, length: number, maxBytes: number, label: string): string {
  if (length >>> 0 > maxBytes) throw new GateError('EVALIDATION', `${label} passed ${length >>> 0} bytes where at most ${maxBytes} are taken`);
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(view(memory, pointer, length, label));
  } catch (error) {
    if (error instanceof GateError) throw error;
    throw new GateError('ERUNTIME', `${label} passed text that is not UTF-8`);
  }
}
