// The pool, hosts and gate are not exported from any built entry: bench modules that drive them
// are bundled here with Vite's own SSR build (the bundler `npm run build` uses, no extra dependency)
// into out/bench/, where `toolgateRoot()` still finds package.json by walking up.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'vite';

/** Bundles the given TypeScript bench modules (paths relative to the repo root) and imports them. */
export async function loadInternal(root, entries) {
  const outDir = join(root, 'out/bench');
  await build({
    configFile: false,
    root,
    logLevel: 'warn',
    build: {
      ssr: true,
      outDir,
      emptyOutDir: true,
      target: 'node20',
      minify: false,
      rollupOptions: { input: Object.fromEntries(entries.map((entry) => [entry.replace(/^.*\/|\.ts$/g, ''), join(root, entry)])) },
    },
  });
  return Promise.all(entries.map((entry) => import(pathToFileURL(join(outDir, `${entry.replace(/^.*\/|\.ts$/g, '')}.js`)).href)));
}
