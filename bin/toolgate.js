#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import '../scripts/check-node.mjs';

// Claude Code runs `toolgate hook claude-code` before and after every tool call: that exact command
// has its own small entry, so it starts without the CLI's code. Every other command is the CLI's.
const args = process.argv.slice(2);
const entry = args.length === 2 && args[0] === 'hook' && args[1] === 'claude-code' ? 'hook/hook.js' : 'main/cli.js';
const built = fileURLToPath(new URL(`../out/${entry}`, import.meta.url));
if (!existsSync(built)) {
  process.stderr.write('toolgate is not built yet: run `npm run build` in the toolgate folder first.\n');
  process.exit(2);
}
await import(built);
