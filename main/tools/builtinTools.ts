import type { DefinedTool } from '../registry/defineTool';
import { calculatorTool } from './calculator';
import { deletePathTool } from './deletePath';
import { echoTool } from './echo';
import { editFileTool } from './editFile';
import { hashTool } from './hash';
import { httpFetchTool } from './httpFetch';
import { listDirTool } from './listDir';
import { MEMORY_TOOLS } from './memory/memoryTools';
import { readFileTool } from './readFile';
import { searchFilesTool } from './searchFiles';
import { shellExecTool } from './shellExec';
import { writeFileTool } from './writeFile';

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

/** The memory tools and web_search are served by the gate itself, never in a tool process: see gateTools.ts. */
export { registerGateTools } from './gateTools';

/**
 * Every tool a gate has whatever its settings, for what names, lists or judges them without a gate
 * (`toolgate tools`, `toolgate policy`, a server's review): the tool-process ones and the memory tools.
 * web_search is there only once settings name its provider.
 */
export const GATE_TOOL_DEFINITIONS: readonly DefinedTool[] = [...BUILTIN_TOOLS, ...MEMORY_TOOLS.map(({ tool }) => tool)];
