import type { ToolManifest } from '../../shared/manifest';
import type { DefinedTool } from '../registry/defineTool';
import { calculatorTool } from './calculator';
import { deletePathTool } from './deletePath';
import { echoTool } from './echo';
import { editFileTool } from './editFile';
import { hashTool } from './hash';
import { httpFetchTool } from './httpFetch';
import { listDirTool } from './listDir';
import { readFileTool } from './readFile';
import { searchFilesTool } from './searchFiles';
import { shellExecTool } from './shellExec';
import { writeFileTool } from './writeFile';

/**
 * Whether a call of this tool runs only the gate's own code in its process: a built-in that neither
 * writes files nor starts processes (only shell_exec starts any, and it writes files). Such a call
 * leaves nothing in the process's scratch folders and no process behind, so the checks for those
 * are skipped after it (the cgroup's reads, the walk of /tmp).
 */
export function runsOnlyGateCode(module: string, manifest: Pick<ToolManifest, 'capabilities'>): boolean {
  return module === 'builtin' && !manifest.capabilities.some((capability) => capability.startsWith('fs:write') || capability.startsWith('process:'));
}

/**
 * Whether calls of this tool may share a tool process (CallLimits.mayShare): a built-in of the gate's
 * own code that changes nothing, reaches no one, and whose work is small and bounded by its input.
 * Run again after its shared process ended, such a call does nothing twice that anyone could see.
 * search_files is left out (it walks the whole workspace, and the calls sharing its process would
 * wait for the walk), as is http_fetch (run again, it would reach its server again).
 */
export function mayShareProcess(module: string, manifest: Pick<ToolManifest, 'name' | 'capabilities' | 'sideEffects'>): boolean {
  return runsOnlyGateCode(module, manifest) && QUICK_READS.has(manifest.name) && manifest.sideEffects.every((effect) => effect === 'FsRead');
}

/** The tools every gate registers. */
export const BUILTIN_TOOLS: readonly DefinedTool[] = [
  echoTool,
  hashTool,
  calculatorTool,
  readFileTool,
  listDirTool,
  searchFilesTool,
  writeFileTool,
  editFileTool,
  deletePathTool,
  httpFetchTool,
  shellExecTool,
];

const QUICK_READS: ReadonlySet<string> = new Set([echoTool, hashTool, calculatorTool, readFileTool, listDirTool].map((tool) => tool.manifest.name));

// The memory tools and web_search are registered by gateTools.ts: the gate serves them itself, and
// no tool process (which loads this list) should carry their code.
