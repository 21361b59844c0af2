#!/usr/bin/env node
// `npm run docs`: writes docs/cli.md from the command specs `--help` prints (scripts/cliReference.ts),
// loaded through Vite's module runner, the TypeScript tooling the build already uses.
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runnerImport } from 'vite';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { module } = await runnerImport(join(root, 'scripts/cliReference.ts'), { configFile: false, logLevel: 'silent', root });
writeFileSync(join(root, module.CLI_REFERENCE_PATH), module.cliReference());
console.log(`toolgate: wrote ${module.CLI_REFERENCE_PATH}`);
