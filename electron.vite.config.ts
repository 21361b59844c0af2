import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import react from '@vitejs/plugin-react';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import { build, type Plugin } from 'vite';
import { buildWasmTools } from './scripts/buildWasmTools.mjs';

const dependencies = Object.keys((JSON.parse(readFileSync(resolve(__dirname, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }).dependencies);

/** Whether an import names the package `name` or a file in it. */
function inPackage(id: string, name: string): boolean {
  return id === name || id.startsWith(`${name}/`);
}

/** Whether an import names one of Node's modules or a dependency (or a file in one) rather than a source file. */
function isPackageImport(id: string): boolean {
  return id.startsWith('node:') || dependencies.some((name) => inPackage(id, name));
}

/**
 * A package.json of type module in each folder of built modules. For every module it loads, Node
 * looks for the package.json that says how to read it, in the module's folder and then in each one
 * above it, and it does not remember where it found none: a gate's start tried out/main/chunks,
 * out/main and out/ about 350 times each (a thousand failed opens) before reaching the checkout's
 * own. Found in the module's own folder, it is read once and remembered.
 */
function packageScope(folders: string[]): Plugin {
  return {
    name: 'toolgate-package-scope',
    apply: 'build',
    generateBundle() {
      for (const folder of folders) this.emitFile({ type: 'asset', fileName: `${folder}package.json`, source: `${JSON.stringify({ type: 'module' })}\n` });
    },
  };
}

/**
 * A main-process entry built on its own, after the main bundle (with its lazy chunks beside it, or all
 * in one file); `scopes` are the folders of its output that get their package.json (packageScope).
 */
function separateEntry(name: string, options: { entry: string; outDir: string; fileName: string; emptyOutDir: boolean; inlined?: string[]; lazyChunks: boolean; scopes: string[] }): Plugin {
  const inlined = options.inlined ?? [];
  return {
    name,
    apply: 'build',
    async closeBundle() {
      await build({
        configFile: false,
        root: __dirname,
        logLevel: 'warn',
        ssr: { noExternal: inlined },
        plugins: [packageScope(options.scopes)],
        build: {
          ssr: resolve(__dirname, options.entry),
          outDir: resolve(__dirname, options.outDir),
          emptyOutDir: options.emptyOutDir,
          target: 'node22',
          minify: false,
          rollupOptions: {
            external: (id) => isPackageImport(id) && !inlined.some((name) => inPackage(id, name)),
            output: { entryFileNames: options.fileName, inlineDynamicImports: !options.lazyChunks },
          },
        },
      });
    },
  };
}

/**
 * Claude Code's hook command (`toolgate hook claude-code`) as one file of its own, out/hook/hook.js,
 * built with the main bundle: Claude Code runs it before and after every tool call, and each module
 * Node's ESM loader reads costs it time, so it shares no chunk with the CLI. Its only lazy chunk
 * (the hook input's schema, for when no gate runs) sits beside it. Packages stay imports, as in the
 * main bundle: zod is loaded (lazily) from node_modules, not copied in.
 */
function hookEntry(): Plugin {
  return separateEntry('toolgate-hook-entry', { entry: 'main/hooks/hookMain.ts', outDir: 'out/hook', fileName: 'hook.js', emptyOutDir: true, lazyChunks: true, scopes: ['', 'assets/'] });
}

/**
 * The tool process's entry as one file, out/main/toolProcess.js, with the packages it imports when
 * it starts copied in (zod, @noble/hashes, diff): a gate starts one for each call that writes or runs
 * a command (a sandbox serves one such call), and Node's ESM loader reading a hundred-odd module
 * files instead of one cost each start about a quarter of its CPU. What a tool loads later (the bash
 * grammar, node-pty, the HTML converter) stays an import of node_modules.
 */
function toolProcessEntry(): Plugin {
  return separateEntry('toolgate-tool-process-entry', {
    entry: 'main/hosts/toolProcessMain.ts',
    outDir: 'out/main',
    fileName: 'toolProcess.js',
    emptyOutDir: false,
    inlined: ['zod', '@noble/hashes', 'diff'],
    lazyChunks: false,
    // out/main's package.json is the main bundle's.
    scopes: [],
  });
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
 * headless server (cli), the worker threads that walk a stretch of
 * the audit chain (chainWorker) and keep the explorer's call index (indexWorker), the thread that
 * fetches for a WASM tool's http_fetch host call (wasmFetchWorker), and the API tool
 * modules import (sdk); only index reaches `electron`.
 * Claude Code's hook command is built beside them on its own (hookEntry), and so are the tool
 * process (toolProcessEntry) and the sample WASM tools (wasmTools).
 */
export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin(), packageScope(['', 'chunks/']), hookEntry(), toolProcessEntry(), wasmTools()],
    build: {
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'main/desktop/index.ts'),
          cli: resolve(__dirname, 'main/cli/index.ts'),
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
