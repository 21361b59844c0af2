import { lstatSync, readdirSync } from 'node:fs';
import { join, sep } from 'node:path';

/** A name in the workspace whose change runs code or reconfigures the agent: mutating tools need an explicit grant. */
export interface ProtectedRule {
  /** The file or folder name guarded wherever it appears in a path (compared case-insensitively). */
  readonly name: string;
  /** Why it is guarded, for the refusal. */
  readonly why: string;
  /** Whether it is a folder (everything under it is guarded) rather than one file. */
  readonly folder: boolean;
}

/** The protected names (seed 004 path policies: the gate's own state, agent and editor config, git). */
export const PROTECTED_RULES: readonly ProtectedRule[] = [
  { name: '.git', folder: true, why: 'git runs its hooks and obeys its config' },
  { name: '.toolgate', folder: true, why: "it is the name of the gate's state folder (audit log, token, secrets)" },
  { name: '.mcp.json', folder: false, why: 'it tells agents which MCP servers to start' },
  { name: '.claude', folder: true, why: 'it configures the agent (hooks, permissions, commands)' },
  { name: '.vscode', folder: true, why: 'the editor runs its tasks and obeys its settings' },
];

/** A path that falls under a protected rule. */
export interface ProtectedMatch {
  readonly rule: ProtectedRule;
  /** Workspace-relative path (with /) of the protected file or folder itself, e.g. `sub/.git`. */
  readonly protectedPath: string;
  /** The scoped grant that allows mutating tools to change it, e.g. `fs:write:sub/.git/**`. */
  readonly grant: string;
}

/** The protected file or folder a workspace-relative path is (or lies in), if any. */
export function protectedMatch(relativePath: string): ProtectedMatch | undefined {
  const parts = relativePath.split(/[/\\]+/).filter((part) => part !== '' && part !== '.');
  for (let index = 0; index < parts.length; index++) {
    const rule = ruleFor(parts[index]!);
    if (!rule) continue;
    const protectedPath = parts.slice(0, index + 1).join('/');
    return { rule, protectedPath, grant: `fs:write:${protectedPath}${rule.folder ? '/**' : ''}` };
  }
  return undefined;
}

function ruleFor(name: string): ProtectedRule | undefined {
  const lower = name.toLowerCase();
  return PROTECTED_RULES.find((rule) => rule.name === lower);
}

/** What a search for protected entries under a folder found. */
export interface ProtectedSearch {
  /** Protected files and folders found (not searched further inside). */
  readonly found: ProtectedMatch[];
  /** False when the folder held more entries than the search may visit: the rest is unknown. */
  readonly complete: boolean;
}

/**
 * Finds protected files and folders below `absoluteDir` (whose workspace-relative path is
 * `relativeDir`), without following symlinks, visiting at most `limit` entries. Deleting a folder
 * deletes whatever protected entries it holds, so those need their grant too.
 */
export function findProtectedBelow(absoluteDir: string, relativeDir: string, limit = 200_000): ProtectedSearch {
  const found: ProtectedMatch[] = [];
  const stack: Array<{ absolute: string; relative: string }> = [{ absolute: absoluteDir, relative: relativeDir }];
  let visited = 0;
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir.absolute);
    } catch {
      continue;
    }
    for (const name of names) {
      if (++visited > limit) return { found, complete: false };
      const relative = dir.relative === '' ? name : `${dir.relative}/${name}`;
      const match = ruleFor(name) ? protectedMatch(relative) : undefined;
      if (match) {
        found.push(match);
        continue;
      }
      const absolute = join(dir.absolute, name);
      try {
        if (lstatSync(absolute).isDirectory()) stack.push({ absolute, relative });
      } catch {
        // Gone meanwhile: nothing to find there.
      }
    }
  }
  return { found, complete: true };
}

/** A workspace-relative path with / separators, as grants and rules spell it. */
export function slashed(relativePath: string): string {
  return relativePath.split(sep).join('/');
}
