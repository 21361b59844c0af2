/**
 * The part of V8's WebAssembly JS API the WASM tool source uses, typed here: the project compiles
 * main/ without the DOM lib, which is where TypeScript declares the WebAssembly namespace.
 */

/** An import or export a compiled module declares. */
export interface ModuleItem {
  module?: string;
  name: string;
  kind: 'function' | 'table' | 'memory' | 'global' | 'tag';
}

/** A compiled module. */
export type CompiledModule = object & { readonly compiledModule: unique symbol };

/** A module's linear memory. */
export interface LinearMemory {
  readonly buffer: ArrayBuffer;
}

/** An exported global (the fuel counter). */
export interface WasmGlobal {
  value: unknown;
}

/** What an instance's imports object holds: host functions by module and name. */
export type ImportObject = Record<string, Record<string, (...args: never[]) => unknown>>;

interface WebAssemblyApi {
  Module: (new (bytes: Uint8Array) => CompiledModule) & {
    imports(module: CompiledModule): Array<ModuleItem & { module: string }>;
    exports(module: CompiledModule): ModuleItem[];
  };
  Instance: new (module: CompiledModule, imports: ImportObject) => { exports: Record<string, unknown> };
  RuntimeError: new () => Error;
  LinkError: new () => Error;
}

/** V8's WebAssembly object. */
export const wasmApi = (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
