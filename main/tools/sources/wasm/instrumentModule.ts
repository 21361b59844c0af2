/**
 * Fuel and a memory cap for a WebAssembly module, added by rewriting it with binaryen before V8
 * compiles it:
 * - binaryen's `log-execution` pass puts a call at every function entry, loop header and function
 *   exit; that call is then made an internal function that takes one unit from a fuel global (an
 *   i64 starting at the budget) and traps once it runs below zero. The count depends only on the
 *   code's path, never on time or on the machine, so the same call uses the same fuel everywhere.
 * - binaryen's `instrument-memory` pass, limited to `memory.grow`, routes every growth through the
 *   host first, which ends the call with EQUOTA instead of letting `memory.grow` return -1; the
 *   memory's declared maximum is lowered to the cap too, so nothing else can grow it past.
 * Why binaryen: it is the maintained optimizer and toolchain library of WebAssembly (behind
 * AssemblyScript and Emscripten), runs as plain JS/wasm (no native addon), and ships both passes.
 */
import { GateError } from '../../../../shared/errors';

/** The export through which the host sets and reads a call's fuel. */
export const FUEL_EXPORT = '__toolgate_fuel';
/** The internal import module binaryen's passes add (the module's own imports were checked before). */
export const INSTRUMENT_IMPORT_MODULE = 'env';
/** The host's hook before every memory.grow: (call site, pages asked) -> pages asked. */
export const GROW_HOOK = 'memory_grow_pre';
const GROW_AFTER = 'memory_grow_post';
const FUEL_HOOK = 'log_execution';

/** What instrumentation needs to know. */
export interface InstrumentOptions {
  /** Fuel units one call may use. */
  fuel: number;
  /** The most 64 KiB pages the memory may hold. */
  memoryPages: number;
  /** For messages: which module this is. */
  label: string;
}

type Binaryen = typeof import('binaryen').default;

/**
 * The WebAssembly features a tool's module may use: what Node 22's V8 runs by default and what
 * binaryen reads and writes the same way (binaryen's newest encodings, e.g. compact imports, V8
 * does not read yet). A module using another feature does not validate and is refused.
 */
export function toolFeatures(binaryen: Binaryen): number {
  const { Features } = binaryen;
  return (
    Features.MutableGlobals |
    Features.NontrappingFPToInt |
    Features.SIMD128 |
    Features.BulkMemory |
    Features.SignExt |
    Features.ReferenceTypes |
    Features.Multivalue |
    Features.TailCall |
    Features.ExtendedConst |
    Features.BulkMemoryOpt
  );
}

let loading: Promise<Binaryen> | undefined;

/** binaryen is 14 MB of JS: loaded once, and only in a tool process that runs a WASM tool. */
function loadBinaryen(): Promise<Binaryen> {
  loading ??= import('binaryen').then((loaded) => loaded.default);
  return loading;
}

/** Rewrites `bytes` with a fuel counter and a grow hook; the result is ready for WebAssembly.Module. */
export async function instrumentModule(bytes: Uint8Array, options: InstrumentOptions): Promise<Uint8Array> {
  const binaryen = await loadBinaryen();
  const module = binaryen.readBinary(bytes);
  try {
    module.setFeatures(toolFeatures(binaryen));
    if (!module.validate()) {
      throw new GateError('EVALIDATION', `${options.label} does not validate with the features WASM tools may use (MVP, SIMD, bulk memory, sign extension, reference types, multi-value, tail calls)`);
    }
    capMemory(binaryen, module, options);
    const before = importedFunctions(binaryen, module);
    binaryen.setPassArgument('instrument-memory', 'memory.grow');
    module.runPasses(['log-execution', 'instrument-memory']);
    binaryen.setPassArgument('instrument-memory', null);
    addFuel(binaryen, module, options.fuel, before);
    if (!module.validate()) throw new GateError('ERUNTIME', `${options.label} could not be instrumented for fuel (binaryen's result does not validate)`);
    return module.emitBinary();
  } finally {
    module.dispose();
  }
}

type Module = InstanceType<Binaryen['Module']>;

/** binaryen.js's data segment reflection, which its type declarations leave out. */
interface DataSegments {
  getNumDataSegments(): number;
  getDataSegmentInfo(segment: number): { name: string; offset: number | null; data: ArrayBuffer; passive: boolean };
}

/** Lowers the memory's maximum to the cap; a module that starts above the cap is refused. */
function capMemory(binaryen: Binaryen, module: Module, options: InstrumentOptions): void {
  if (!module.hasMemory()) return;
  const memory = module.getMemoryInfo();
  if (memory.shared || memory.is64) {
    throw new GateError('EVALIDATION', `${options.label} has a shared or 64-bit memory; WASM tools use one plain 32-bit memory`);
  }
  if (memory.initial > options.memoryPages) {
    throw new GateError(
      'EVALIDATION',
      `${options.label} starts with ${memory.initial} pages of memory, more than its cap of ${options.memoryPages}; raise source.memoryPages in the manifest`,
    );
  }
  const segments = [];
  for (let index = 0; index < (module as unknown as DataSegments).getNumDataSegments(); index++) {
    const info = (module as unknown as DataSegments).getDataSegmentInfo(module.getDataSegmentByIndex(index));
    segments.push({
      name: info.name,
      data: new Uint8Array(info.data),
      passive: info.passive,
      offset: info.passive ? 0 : module.i32.const(info.offset ?? 0),
    });
  }
  const maximum = memory.max === undefined ? options.memoryPages : Math.min(memory.max, options.memoryPages);
  // setMemory replaces the memory and its segments at once, so the segments are given back as they were.
  module.removeExport('memory');
  module.setMemory(memory.initial, maximum, 'memory', segments as Parameters<Module['setMemory']>[3], false, false, '0');
}

/** The module's imported functions by internal name, with their import name (base). */
function importedFunctions(binaryen: Binaryen, module: Module): Map<string, string> {
  const imported = new Map<string, string>();
  for (let index = 0; index < module.getNumFunctions(); index++) {
    const info = binaryen.getFunctionInfo(module.getFunctionByIndex(index));
    if (info.module && info.base) imported.set(info.name, info.base);
  }
  return imported;
}

/**
 * Turns the imports the passes added (under the module's first import module, or `env`) into the
 * fuel counter and the grow hook under `env`, and drops the memory pass's unused load/store hooks.
 */
function addFuel(binaryen: Binaryen, module: Module, fuel: number, before: Map<string, string>): void {
  const added = new Map<string, string>();
  for (const [name, base] of importedFunctions(binaryen, module)) {
    if (!before.has(name)) added.set(base, name);
  }
  for (const [base, name] of added) {
    if (base !== FUEL_HOOK && base !== GROW_HOOK && base !== GROW_AFTER) module.removeFunction(name);
  }
  const grow = added.get(GROW_HOOK);
  if (grow !== undefined) {
    module.removeFunction(grow);
    module.addFunctionImport(grow, INSTRUMENT_IMPORT_MODULE, GROW_HOOK, binaryen.createType([binaryen.i32, binaryen.i32]), binaryen.i32);
  }
  module.addGlobal(FUEL_EXPORT, binaryen.i64, true, module.i64.const(BigInt(fuel)));
  module.addGlobalExport(FUEL_EXPORT, FUEL_EXPORT);
  const counter = added.get(FUEL_HOOK);
  if (counter !== undefined) {
    module.removeFunction(counter);
    const remaining = (): number => module.global.get(FUEL_EXPORT, binaryen.i64);
    module.addFunction(
      counter,
      binaryen.i32,
      binaryen.none,
      [],
      module.block(null, [
        module.global.set(FUEL_EXPORT, module.i64.sub(remaining(), module.i64.const(1n))),
        module.if(module.i64.lt_s(remaining(), module.i64.const(0n)), module.unreachable()),
      ]),
    );
  }
  const after = added.get(GROW_AFTER);
  if (after !== undefined) {
    // What memory.grow returned goes on unchanged: the host already refused a growth past the cap.
    module.removeFunction(after);
    module.addFunction(after, binaryen.createType([binaryen.i32, binaryen.i32]), binaryen.i32, [], module.local.get(1, binaryen.i32));
  }
}
