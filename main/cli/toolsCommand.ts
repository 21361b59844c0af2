import { resolve } from 'node:path';
import { ToolRegistry } from '../registry/registry';
import { exportToolSchemas, TOOL_SCHEMA_FORMATS, type ToolSchemaFormat } from '../registry/schemaFormats';
import { GATE_TOOL_DEFINITIONS } from '../tools/gateTools';
import { loadToolModule } from '../tools/loadToolModule';
import { UsageError, flag } from './argv';
import { parseCommandLine, subcommandOf } from './commandSpec';
import { commandSpec } from './commandSpecs';
import type { Io } from './commands';

/** `toolgate tools [--format mcp|openai|anthropic] [--tools MODULE]`: the tool schemas as JSON. */
export async function toolsCommand(argv: string[], io: Io): Promise<number> {
  const sub = subcommandOf(commandSpec('tools'), argv);
  if (sub?.name === 'review') return (await import('./toolReviewCommand')).toolsReview(parseCommandLine(sub, argv, 'tools review'), io);
  const args = parseCommandLine(commandSpec('tools'), argv, 'tools');
  const format = (flag(args, 'format') ?? 'mcp') as ToolSchemaFormat;
  if (!TOOL_SCHEMA_FORMATS.includes(format)) {
    throw new UsageError(`--format takes ${TOOL_SCHEMA_FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  }
  const registry = new ToolRegistry();
  for (const tool of GATE_TOOL_DEFINITIONS) registry.register(tool);
  for (const module of args.flags.get('tools') ?? []) {
    for (const tool of await loadToolModule(resolve(module))) registry.register(tool, resolve(module));
  }
  // The tools home's manifests a person reviewed, as a gate started now would offer them.
  const { scanToolsHome } = await import('../tools/sources/toolsHome');
  for (const home of await scanToolsHome(io.home)) {
    if (home.state === 'trusted' && home.loaded && !registry.get(home.loaded.tool.manifest.name)) registry.register(home.loaded.tool, home.module);
  }
  io.out(`${JSON.stringify(exportToolSchemas(registry.list(), format), null, 2)}\n`);
  return 0;
}
