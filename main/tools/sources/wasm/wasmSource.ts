import { GateError } from '../../../../shared/errors';
import type { SourceLoader } from '../manifestFile';
import { checkImports } from './hostImports';
import { WasmFileCalls } from './hostFiles';
import { WasmNetCalls } from './hostNet';
import { instrumentModule } from './instrumentModule';
import { runWasmCall } from './wasmCall';
import { sha256 } from '../sourcePins';
import { readWasmModule } from './wasmManifest';
import { wasmApi, type CompiledModule } from './webAssemblyApi';

/**
 * Loads a WASM tool: its module is read (inside the manifest's folder, matching its pin) and its
 * imports and exports checked here, in the gate and in the tool process alike (V8 compiles it to
 * list them; the gate never instantiates it, so none of its code runs there); the module is
 * instrumented for fuel and compiled once per tool process, at its first call, and every call runs
 * in a fresh instance of it. The runtime is the tool process's own V8.
 */
export const loadWasmSource: SourceLoader = async (manifest, manifestPath, options) => {
  const file = await readWasmModule(manifest, manifestPath);
  // The bytes checked against the review's pin are the bytes compiled: a file changed later is never run here.
  const reviewed = options?.codeHash;
  const actual = reviewed === undefined ? undefined : sha256(file.bytes);
  if (actual !== reviewed) {
    throw new GateError('EPERMISSION', `${file.label}: the module ${file.path} changed since the tool was reviewed or the gate loaded it (sha256 ${actual}, pinned ${reviewed}); nothing was run. Review it with \`toolgate tools review ${manifest.name}\` (or restart the gate, for a manifest given with --tools)`);
  }
  let plain: CompiledModule;
  try {
    plain = new wasmApi.Module(file.bytes);
  } catch (error) {
    throw new GateError('EVALIDATION', `${file.label}: ${file.path} is not a WebAssembly module V8 accepts: ${(error as Error).message}`);
  }
  checkImports(plain, manifest, file.label);
  const { fuel, memoryPages } = file.source;
  let compiled: Promise<CompiledModule> | undefined;
  return {
    codeFile: file.path,
    execute: async (input, context) => {
      compiled ??= instrumentModule(file.bytes, { fuel, memoryPages, label: file.label }).then((bytes) => new wasmApi.Module(bytes));
      const files = new WasmFileCalls({ tool: manifest.name, pathArguments: manifest.pathArguments ?? [], input, context });
      const net = new WasmNetCalls({ tool: manifest.name, urlArguments: manifest.urlArguments ?? [], input });
      const { output, usage } = runWasmCall({ module: await compiled, label: file.label, fuel, memoryPages, files, net }, input);
      // The call's log (stderr, sent to the agent as a log message): what it cost, the same on every run.
      process.stderr.write(`${manifest.name}: fuel ${usage.fuelUsed} of ${fuel}, memory ${usage.pages} of ${memoryPages} pages\n`);
      return output;
    },
  };
};
