// Types of buildWasmTools.mjs for electron.vite.config.ts and the tests.

/** The sample tools' folder names under tools/wasm. */
export function wasmToolNames(root: string): string[];

/** Compiles every sample WASM tool into out/tools/wasm/<name>/ with its pinned manifest. */
export function buildWasmTools(root: string): Promise<void>;
