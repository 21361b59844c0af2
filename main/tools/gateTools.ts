import type { DefinedTool } from '../registry/defineTool';
import type { ToolRegistry } from '../registry/registry';
import { BUILTIN_TOOLS } from './builtinTools';
import { mutatingEffects } from '../../shared/manifest';
import type { SecretProvider } from '../secrets/secretProvider';
import { gateServedRunner } from './gateServed';
import { MEMORY_TOOLS } from './memory/memoryTools';
import { NoteStore } from './memory/noteStore';
import type { WebSearchSettings } from './webSearch/searchSettings';
import { webSearchTool } from './webSearch/webSearchTool';

/**
 * Every tool a gate has whatever its settings, for what names, lists or judges them without a gate
 * (`toolgate tools`, `toolgate policy`, a server's review): the tool-process ones and the memory tools.
 * web_search is there only once settings name its provider.
 */
export const GATE_TOOL_DEFINITIONS: readonly DefinedTool[] = [...BUILTIN_TOOLS, ...MEMORY_TOOLS.map(({ tool }) => tool)];

/** What the tools the gate serves itself need. */
export interface GateToolsOptions {
  /** The state folder: the notes live in it. */
  home: string;
  /** The workspace's real path: each workspace has its own notes. */
  workspace: string;
  /** The gate's redaction of every secret it knows. */
  redact<T>(value: T): T;
  secrets: SecretProvider;
  /** The search provider; without it no web_search is offered. */
  webSearch?: WebSearchSettings;
}

/** The tools the gate serves, registered; close() closes the notes database. */
export interface GateTools {
  readonly notes: NoteStore;
  close(): void;
}

/**
 * Registers the memory tools and (when a provider is set) web_search, served by the gate itself
 * (see gateServed.ts for why). A read-only registry goes without the ones that write, as it does
 * without the built-ins that write.
 */
export function registerGateTools(registry: ToolRegistry, options: GateToolsOptions): GateTools {
  const notes = new NoteStore(options.home, options.workspace);
  const served = MEMORY_TOOLS.map(({ tool, serve }) => ({ tool, behaviour: serve({ store: notes, redact: (value) => options.redact(value) }) }));
  if (options.webSearch) {
    served.push(webSearchTool({ settings: options.webSearch, secrets: options.secrets, otherTools: () => registry.list().map((manifest) => manifest.name) }));
  }
  for (const { tool, behaviour } of served) {
    if (registry.readOnly && mutatingEffects(tool.manifest.sideEffects).length > 0) continue;
    registry.registerExternal(tool, gateServedRunner(tool, behaviour));
  }
  return { notes, close: () => notes.close() };
}
