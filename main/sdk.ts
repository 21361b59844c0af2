/** What a tool module imports to define tools for the gate: `import { defineTool } from 'toolgate'`. */
export { defineTool, type DefinedTool, type ToolContext, type ToolDefinition } from './registry/defineTool';
export { GateError } from '../shared/errors';
export type { Preview } from '../shared/approval';
