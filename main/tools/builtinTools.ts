import type { DefinedTool } from '../registry/defineTool';
import { echoTool } from './echo';
import { hashTool } from './hash';
import { listDirTool } from './listDir';
import { readFileTool } from './readFile';
import { writeFileTool } from './writeFile';

/** The tools every gate registers. */
export const BUILTIN_TOOLS: readonly DefinedTool[] = [echoTool, hashTool, readFileTool, listDirTool, writeFileTool];
