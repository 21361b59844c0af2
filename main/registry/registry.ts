import { GateError } from '../../shared/errors';
import { mutatingEffects, type ToolManifest } from '../../shared/manifest';
import type { DefinedTool } from './defineTool';

/** Where the tool process finds a tool's code: the built-in set, or an ES module's absolute path. */
export type ToolModule = 'builtin' | (string & {});

/** A tool as the registry holds it. */
export interface RegisteredTool {
  /** Manifest, schemas and code. */
  readonly tool: DefinedTool;
  /** The module the tool process loads it from. */
  readonly module: ToolModule;
}

/** Options of a registry. */
export interface RegistryOptions {
  /** Refuse tools that write or spawn (seed 004's read-only mode, for brainstorming sessions). */
  readOnly?: boolean;
}

/** The tools the gate knows, by unique name. */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();
  readonly readOnly: boolean;

  constructor(options: RegistryOptions = {}) {
    this.readOnly = options.readOnly ?? false;
  }

  /** Adds a tool; refuses a duplicate name, and in read-only mode any mutating tool. */
  register(tool: DefinedTool, module: ToolModule = 'builtin'): void {
    const { name, sideEffects } = tool.manifest;
    if (this.tools.has(name)) {
      throw new GateError('EVALIDATION', `a tool named ${name} is already registered; remove it first or pick another name`);
    }
    if (this.readOnly) {
      const mutating = mutatingEffects(sideEffects);
      if (mutating.length > 0) {
        throw new GateError(
          'EPERMISSION',
          `the registry is read-only and ${name} declares ${mutating.join(', ')}; start without read-only mode to use it`,
        );
      }
    }
    this.tools.set(name, { tool, module });
  }

  /** The tool of that name, if registered. */
  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  /** Whether a tool of that name is registered. */
  has(name: string): boolean {
    return this.tools.has(name);
  }

  /** The manifests of all tools, sorted by name. */
  list(): ToolManifest[] {
    return [...this.tools.values()].map((entry) => entry.tool.manifest).sort((a, b) => a.name.localeCompare(b.name));
  }

  /** Removes a tool; returns whether it was there. */
  remove(name: string): boolean {
    return this.tools.delete(name);
  }

  /** Removes every tool. */
  clear(): void {
    this.tools.clear();
  }
}
