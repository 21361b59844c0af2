// Builds the sample WASM tools (tools/wasm/<name>/index.ts, AssemblyScript) into out/tools/wasm/<name>/:
// the module and its manifest, pinned to the module's SHA-256. Run by the main build (electron.vite.config.ts),
// so `npm run build`, the prepare step and the tests' build check all make them from source.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The sample tools' folders under tools/wasm (each with index.ts and manifest.json). */
export function wasmToolNames(root) {
  return readdirSync(join(root, 'tools/wasm'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== 'lib')
    .map((entry) => entry.name);
}

/** Compiles every sample tool with the AssemblyScript compiler and writes it with its pinned manifest. */
export async function buildWasmTools(root) {
  const { default: asc } = await import('assemblyscript/asc');
  const outRoot = join(root, 'out/tools/wasm');
  rmSync(outRoot, { recursive: true, force: true });
  for (const name of wasmToolNames(root)) {
    const outDir = join(outRoot, name);
    mkdirSync(outDir, { recursive: true });
    const manifest = JSON.parse(readFileSync(join(root, 'tools/wasm', name, 'manifest.json'), 'utf8'));
    const wasmPath = join(outDir, manifest.source.module);
    const errors = [];
    const result = await asc.main(
      [
        join('tools/wasm', name, 'index.ts'),
        '--outFile', wasmPath,
        // The stub runtime never frees: one call is one instance, dropped whole when it ends.
        '--runtime', 'stub',
        '--optimizeLevel', '3',
        '--noAssert',
        // AssemblyScript's abort becomes the host's fail, so a tool imports nothing from `env`.
        '--use', 'abort=tools/wasm/lib/toolgate/abortTool',
      ],
      { stdout: { write: () => true }, stderr: { write: (text) => errors.push(String(text)) }, baseDir: root },
    );
    if (result.error) throw new Error(`the WASM tool ${name} did not compile: ${result.error.message}\n${errors.join('')}`);
    const sha256 = createHash('sha256').update(readFileSync(wasmPath)).digest('hex');
    writeFileSync(join(outDir, 'manifest.json'), `${JSON.stringify({ ...manifest, source: { ...manifest.source, sha256 } }, null, 2)}\n`);
  }
}
