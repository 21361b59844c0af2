import { isAbsolute } from 'node:path';
import { pathToFileURL } from 'node:url';
import { GateError } from '../../shared/errors';
import type { DefinedTool } from '../registry/defineTool';
import { BUILTIN_TOOLS } from './builtinTools';
import { isManifestFile, loadManifestTool } from './sources/manifestFile';

function isDefinedTool(value: unknown): value is DefinedTool {
  const candidate = value as DefinedTool | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.manifest?.name === 'string' &&
    typeof candidate.execute === 'function'
  );
}

/**
 * The tools an ES module provides: its `tools` export (an array made with defineTool), or every
 * export that is a defined tool; or the one tool a manifest file (`.json`) describes. 'builtin' names
 * the built-in set.
 */
export async function loadToolModule(module: string): Promise<readonly DefinedTool[]> {
  if (module === 'builtin') return BUILTIN_TOOLS;
  if (!isAbsolute(module)) throw new GateError('EVALIDATION', `tool module ${module} must be an absolute path`);
  if (isManifestFile(module)) return [await loadManifestTool(module)];
  let exports: Record<string, unknown>;
  try {
    exports = (await import(pathToFileURL(module).href)) as Record<string, unknown>;
  } catch (error) {
    throw new GateError('EVALIDATION', `tool module ${module} could not be loaded: ${(error as Error).message}`);
  }
  const candidates = Array.isArray(exports.tools) ? exports.tools : Object.values(exports);
  const tools = candidates.filter(isDefinedTool);
  if (tools.length === 0) {
    throw new GateError('EVALIDATION', `tool module ${module} exports no tools; export \`tools = [defineTool({...})]\``);
  }
  return tools;
}
