import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import { build, type Plugin } from 'vite';
import { buildWasmTools } from './scripts/buildWasmTools.mjs';

const dependencies = Object.keys((JSON.parse(readFileSync(resolve(__dirname, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);

/** Whether an import names one of Node's modules or a dependency (or a file in one) rather than a source file. */
function isPackageImport(id: string): boolean {
  return id.startsWith('node:') || dependencies.some((name) => id === name || id.startsWith(`${name}/`));
}

/**
 * Claude Code's hook command (`toolgate hook claude-code`) as one file of its own, out/hook/hook.js,
 * built with the main bundle: Claude Code runs it before and after every tool call, and each module
 * Node's ESM loader reads costs it time, so it shares no chunk with the CLI. Its only lazy chunk
 * (the hook input's schema, for when no gate runs) sits beside it.
 */
function hookEntry(): Plugin {
  return {
    name: 'toolgate-hook-entry',
    apply: 'build',
    async closeBundle() {
      await build({
        configFile: false,
        root: __dirname,
        logLevel: 'warn',
        build: {
          ssr: resolve(__dirname, 'main/hooks/hookMain.ts'),
          outDir: resolve(__dirname, 'out/hook'),
          emptyOutDir: true,
          target: 'node22',
          minify: false,
          // Packages stay imports, as in the main bundle: zod is loaded (lazily) from node_modules, not copied in.
          rollupOptions: { external: isPackageImport, output: { entryFileNames: 'hook.js' } },
        },
      });
    },
  };
}

/** The sample WASM tools (tools/wasm/, AssemblyScript) compiled into out/tools/wasm/ with the main bundle. */
function wasmTools(): Plugin {
  return {
    name: 'toolgate-wasm-tools',
    apply: 'build',
    async closeBundle() {
      await buildWasmTools(__dirname);
    },
  };
}

/**
 * One build for both shells. main/ yields its entries: the desktop app (index), the CLI and
 * headless server (cli), the tool process (toolProcess), the worker threads that walk a stretch of
 * the audit chain (chainWorker) and keep the explorer's call index (indexWorker), the thread that
 * fetches for a WASM tool's http_fetch host call (wasmFetchWorker), and the API tool
 * modules import (sdk); only index reaches `electron`.
 * Claude Code's hook command is built beside them on its own (hookEntry), and so are the sample WASM tools (wasmTools).
 */
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin(), hookEntry(), wasmTools()],
    build: {
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'main/desktop/index.ts'),
          cli: resolve(__dirname, 'main/cli/index.ts'),
          toolProcess: resolve(__dirname, 'main/hosts/toolProcessMain.ts'),
          chainWorker: resolve(__dirname, 'main/audit/chainWorker.ts'),
          indexWorker: resolve(__dirname, 'main/audit/indexWorker.ts'),
          wasmFetchWorker: resolve(__dirname, 'main/tools/sources/wasm/fetchWorker.ts'),
          sdk: resolve(__dirname, 'main/sdk.ts'),
        },
      },
    },
  },
  preload: {
    // A sandboxed preload can load nothing but `electron`: everything else is bundled, as CommonJS.
    plugins: [externalizeDepsPlugin({ include: [] , exclude: ['zod', '@noble/hashes'] })],
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'preload/index.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'renderer'),
    // resources/ (the icon's SVG source and its PNG sizes) is copied into the build as it is.
    publicDir: resolve(__dirname, 'resources'),
    plugins: [react()],
    build: {
      minify: true,
      // Monaco is one lazy chunk of ~2.5 MB, loaded only when a diff is shown.
      chunkSizeWarningLimit: 4096,
      rollupOptions: { input: resolve(__dirname, 'renderer/index.html') },
    },
  },
});
