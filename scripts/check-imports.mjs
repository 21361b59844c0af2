#!/usr/bin/env node
// Keeps the folders honest about where their code runs (STYLE.md rule 1):
//   shared/    no node:*, no electron, no DOM-only globals
//   renderer/  only shared/ and its own files; no node:*, no electron, nothing from main/ or preload/
//   preload/   electron and shared/ only
//   main/      electron only inside main/desktop/ and main/hosts/
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { builtinModules } from 'node:module';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');
const NODE_BUILTINS = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));
const IMPORT = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\s*\(\s*['"]([^'"]+)['"]\s*\)|require\(\s*['"]([^'"]+)['"]\s*\)|^\s*import\s*['"]([^'"]+)['"]/gm;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else if (/\.(ts|tsx|mts|mjs)$/.test(entry)) yield path;
  }
}

function rulesFor(file) {
  const rel = relative(root, file);
  const top = rel.split('/')[0];
  return { rel, top };
}

const problems = [];
for (const top of ['shared', 'renderer', 'preload', 'main']) {
  for (const file of sourceFiles(join(root, top))) {
    const { rel } = rulesFor(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT)) {
      const spec = match[1] ?? match[2] ?? match[3] ?? match[4];
      const target = spec.startsWith('.') ? relative(root, resolve(dirname(file), spec)) : spec;
      const targetTop = spec.startsWith('.') ? target.split('/')[0] : undefined;
      const isNode = NODE_BUILTINS.has(spec);
      const isElectron = spec === 'electron' || spec.startsWith('electron/');
      let why;
      if (top === 'shared') {
        if (isNode) why = 'shared/ runs everywhere: no Node built-ins';
        else if (isElectron) why = 'shared/ never imports electron';
        else if (targetTop && targetTop !== 'shared') why = 'shared/ imports only shared/';
      } else if (top === 'renderer') {
        if (isNode) why = 'the renderer has no Node';
        else if (isElectron) why = 'the renderer talks only through the bridge';
        else if (targetTop && !['renderer', 'shared'].includes(targetTop)) why = 'renderer/ imports only renderer/ and shared/';
      } else if (top === 'preload') {
        if (isNode) why = 'the sandboxed preload has no Node built-ins';
        else if (targetTop && !['preload', 'shared'].includes(targetTop)) why = 'preload/ imports only shared/';
      } else if (top === 'main') {
        if (isElectron && !rel.startsWith('main/desktop/') && !rel.startsWith('main/hosts/')) {
          why = 'only main/desktop/ and main/hosts/ may import electron';
        } else if (targetTop && ['renderer', 'preload'].includes(targetTop)) why = 'main/ never imports the renderer or preload';
      }
      if (why) problems.push(`${rel}: imports ${JSON.stringify(spec)}: ${why}`);
    }
  }
}

// The core must stay electron-free: only the desktop entry's import graph may reach it.
if (problems.length > 0) {
  console.error(`Import rules broken (${problems.length}):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('import rules hold: shared/, renderer/, preload/ and main/ import only what their runtime has');
