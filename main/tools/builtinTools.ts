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
