#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import '../scripts/check-node.mjs';

// Claude Code runs `toolgate hook claude-code` before and after every tool call: that exact command
// has its own small entry, so it starts without the CLI's code. Every other command is the CLI's.
const args = process.argv.slice(2);
// The gate (`toolgate serve`) answers calls for hours, with V8 settings of its own for its heap and
// its tiering (scripts/gate-v8-flags.mjs; bench/mcpEcho.ts measures them). V8 takes them on its
// command line, so the process replaces itself once with them (same pid and descriptors); where
// execve is missing, it runs as it is.
if (args[0] === 'serve' && typeof process.execve === 'function' && process.platform !== 'win32' && !process.execArgv.some((flag) => flag.startsWith('--max-semi-space-size'))) {
  // Loaded here, not above: the hook's start pays for no module it does not use.
  const { GATE_V8_FLAGS } = await import('../scripts/gate-v8-flags.mjs');
  try {
    process.execve(process.execPath, [process.execPath, ...GATE_V8_FLAGS, ...process.execArgv, fileURLToPath(import.meta.url), ...args], process.env);
  } catch {
    // Served as it is, with V8's defaults.
  }
}
const entry = args.length === 2 && args[0] === 'hook' && args[1] === 'claude-code' ? 'hook/hook.js' : 'main/cli.js';
const built = fileURLToPath(new URL(`../out/${entry}`, import.meta.url));
if (!existsSync(built)) {
  process.stderr.write('toolgate is not built yet: run `npm run build` in the toolgate folder first.\n');
  process.exit(2);
}
await import(built);
