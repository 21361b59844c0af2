#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import '../scripts/check-node.mjs';

// Claude Code runs `toolgate hook claude-code` before and after every tool call: that exact command
// has its own small entry, so it starts without the CLI's code. Every other command is the CLI's.
const args = process.argv.slice(2);
// The gate (`toolgate serve`) answers calls for hours. Two heap settings keep it about 100 MB
// smaller under 16 agents at the same CPU per call (bench/mcpEcho.ts measures both): a young
// generation of 4 MB instead of up to 16 MB per semi-space, and an old generation let grow 60 %
// past what survived the last full collection, where V8 let it reach several times that (its live
// heap is about 40 MB). V8 reads both when the process starts, so the process replaces itself once
// with them (same pid and descriptors); where execve is missing, it runs as it is.
const HEAP_FLAGS = ['--max-semi-space-size=4', '--heap-growing-percent=60'];
if (args[0] === 'serve' && typeof process.execve === 'function' && process.platform !== 'win32' && !process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size'))) {
  try {
    process.execve(process.execPath, [process.execPath, ...HEAP_FLAGS, ...process.execArgv, fileURLToPath(import.meta.url), ...args], process.env);
  } catch {
    // Served as it is, with V8's default young generation.
  }
}
const entry = args.length === 2 && args[0] === 'hook' && args[1] === 'claude-code' ? 'hook/hook.js' : 'main/cli.js';
const built = fileURLToPath(new URL(`../out/${entry}`, import.meta.url));
if (!existsSync(built)) {
  process.stderr.write('toolgate is not built yet: run `npm run build` in the toolgate folder first.\n');
  process.exit(2);
}
await import(built);
