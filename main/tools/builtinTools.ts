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
 * own code that is Pure and has no side effects (echo, hash, calculator), whose work is a function of
 * its input, which the input's own bound keeps small. A tool that reads files or folders does not:
 * its time and memory grow with what it reads, and the calls sharing its process would wait for it.
 * Run again after its shared process ended, such a call does nothing twice that anyone could see.
 */
export function mayShareProcess(module: string, manifest: Pick<ToolManifest, 'capabilities' | 'sideEffects' | 'determinism'>): boolean {
  return runsOnlyGateCode(module, manifest) && manifest.determinism === 'Pure' && manifest.sideEffects.length === 0;
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

// The memory tools and web_search are registered by gateTools.ts: the gate serves them itself, and
// no tool process (which loads this list) should carry their code.
