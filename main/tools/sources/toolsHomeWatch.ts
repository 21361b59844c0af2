import { realpathSync } from 'node:fs';
import type { ToolSourceInfo } from '../../../shared/toolSources';
import type { ToolRegistry } from '../../registry/registry';
import { isInside } from '../workspacePath';
import { scanToolsHome, sourceInfo, toolsFolder, toolsHomeSignature, type HomeTool } from './toolsHome';

/** What the tools home is given by its gate. */
export interface ToolsHomeStart {
  home: string;
  registry: ToolRegistry;
  /**
   * The gate's list of paths tool processes may read in their sandbox: the tools folder and each
   * program or module a manifest names are added, so the next tool process can load them.
   */
  sandboxReadable: string[];
  /** Told when the tools home's tools changed (after they are registered anew). */
  onChange?: () => void;
  /** Told when a manifest's tool cannot be registered (a name taken by another tool). */
  log?: (message: string) => void;
}

/** The running tools home. */
export interface RunningToolsHome {
  /** The Tools view's facts of a manifest tool, by name. */
  sourceOf(name: string): ToolSourceInfo | undefined;
  /** Reads the folder and the reviews again now (the watch does it within a second). */
  refresh(): Promise<void>;
  close(): void;
}

/**
 * The file a trusted tool runs, as the sandbox may show it to every tool process: its real path
 * (bubblewrap binds what a symlink points to), never one inside the state folder, which stays
 * hidden (a manifest naming the secrets file as its "module" must not bring it into view).
 */
function showableCode(home: string, codeFile: string | undefined): string | undefined {
  if (codeFile === undefined) return undefined;
  let real: string;
  try {
    real = realpathSync(codeFile);
  } catch {
    return undefined;
  }
  return isInside(realpathOrSelf(home), real) ? undefined : real;
}

function realpathOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** How often the tools folder, the files its manifests run and the reviews file are looked at. */
const POLL_MS = 1000;

/**
 * Registers the tools of `$TOOLGATE_HOME/tools/*.json` and keeps them in step with the folder, the
 * files they run and their reviews, as servers.json is watched: a manifest added, edited or
 * removed, a program replaced, a review saved are taken in within a second. A tool that was never
 * reviewed, or whose manifest or program changed since, is registered held: hidden from agents,
 * and every call of it refused naming what changed and the review command. Even a call that slips
 * in before the next look is refused: a trusted tool's module path carries its pins, which the
 * tool process checks against the files it loads and runs.
 */
export async function startToolsHome(start: ToolsHomeStart): Promise<RunningToolsHome> {
  let tools: HomeTool[] = [];
  let registered: string[] = [];
  let seen = '';
  let closed = false;
  let scanning: Promise<void> | undefined;

  const apply = (found: HomeTool[]): void => {
    for (const name of registered) start.registry.remove(name);
    registered = [];
    tools = found;
    const folder = toolsFolder(start.home);
    // A tools folder that leads (through a symlink) to the state folder or above it would show the secrets file.
    if (!start.sandboxReadable.includes(folder) && !isInside(realpathOrSelf(folder), realpathOrSelf(start.home))) start.sandboxReadable.push(folder);
    for (const tool of found) {
      if (!tool.loaded) continue;
      const shown = tool.state === 'trusted' ? showableCode(start.home, tool.loaded.codeFile) : undefined;
      if (shown && !start.sandboxReadable.includes(shown)) start.sandboxReadable.push(shown);
      const name = tool.loaded.tool.manifest.name;
      try {
        start.registry.register(tool.loaded.tool, tool.module, undefined, { refusal: () => current(name)?.refusal });
        registered.push(name);
      } catch (error) {
        start.log?.(`${tool.path}: ${(error as Error).message}`);
      }
    }
    start.onChange?.();
  };
  const current = (name: string): HomeTool | undefined => tools.find((tool) => tool.loaded?.tool.manifest.name === name);
  const refresh = (): Promise<void> => {
    scanning ??= (async () => {
      try {
        const signature = toolsHomeSignature(start.home, tools);
        const found = await scanToolsHome(start.home);
        if (!closed) apply(found);
        // Taken before the scan: a change made while it ran is seen at the next look.
        seen = signature;
      } catch (error) {
        start.log?.(`the tools home could not be read: ${(error as Error).message}; its tools are held until it can`);
        for (const tool of tools) tool.refusal ??= `the tool reviews could not be read: ${(error as Error).message}`;
      } finally {
        scanning = undefined;
      }
    })();
    return scanning;
  };
  await refresh();
  const timer = setInterval(() => {
    if (!scanning && toolsHomeSignature(start.home, tools) !== seen) void refresh();
  }, POLL_MS);
  timer.unref();
  return {
    sourceOf: (name) => {
      const tool = current(name);
      return tool ? sourceInfo(tool) : undefined;
    },
    refresh,
    close: () => {
      closed = true;
      clearInterval(timer);
    },
  };
}

