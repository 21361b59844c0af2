#!/usr/bin/env node
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import '../scripts/check-node.mjs';

const cli = fileURLToPath(new URL('../out/main/cli.js', import.meta.url));
if (!existsSync(cli)) {
  process.stderr.write('toolgate is not built yet: run `npm run build` in the toolgate folder first.\n');
  process.exit(2);
}
await import(cli);
