/**
 * The README is true where it states facts the code holds: the tier of every built-in tool, the
 * Node version, and the CLI's commands.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { COMMAND_SPECS } from '../main/cli/commandSpecs';
import { BUILTIN_TOOLS } from '../main/tools/builtinTools';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const readme = readFileSync(`${ROOT}/README.md`, 'utf8');
const packageJson = JSON.parse(readFileSync(`${ROOT}/package.json`, 'utf8')) as { engines: { node: string } };

describe('the README', () => {
  it('lists every built-in tool once, at the tier its manifest declares', () => {
    const rows = [...readme.matchAll(/^\| `([a-z_]+)` \| (SAFE|STANDARD|ELEVATED|RESTRICTED|DANGEROUS) \|/gm)].map((match) => [match[1], match[2]]);
    const tools = BUILTIN_TOOLS.map((tool) => [tool.manifest.name, tool.manifest.tier]);
    expect(rows.sort()).toEqual(tools.sort());
  });

  it('names the Node version package.json requires', () => {
    const minimum = /^>=(\d+\.\d+)/.exec(packageJson.engines.node)?.[1];
    expect(minimum).toBeDefined();
    expect(readme).toContain(`Node ${minimum}`);
  });

  it('shows every CLI command and subcommand', () => {
    const cli = readme.slice(readme.indexOf('## The CLI'));
    for (const spec of COMMAND_SPECS) {
      for (const words of spec.subcommands ? spec.subcommands.map((sub) => `${spec.name} ${sub.name}`) : [spec.name]) {
        expect(cli, words).toContain(`toolgate ${words}`);
      }
    }
  });
});
