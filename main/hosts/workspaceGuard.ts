import { lstatSync, readdirSync, readlinkSync, rmSync, symlinkSync, type Dirent, type Stats } from 'node:fs';
import { join } from 'node:path';
import type { Capability } from '../../shared/manifest';
import { covers } from '../executor/steps/checkCapabilities';
import { mayBeProtected, protectedMatch, type ProtectedMatch } from '../tools/protectedPaths';

/** A protected entry that exists in the workspace, and how a sandbox holds it. */
export interface GuardedEntry {
  /** Workspace-relative path with / separators. */
  readonly relative: string;
  readonly absolute: string;
  /** The rule that guards it and the grant that would free it. */
  readonly match: ProtectedMatch;
  /**
   * `read-only`: mounted read-only over itself. `pinned`: a writable mount over itself, so it cannot
   * be moved, removed or replaced (a `.git` folder whose objects and refs git must still write).
   * `link`: a symlink, which a mount would follow; it is put back after the call if it changed.
   */
  readonly hold: 'read-only' | 'pinned' | 'link';
  /** The target of a `link`. */
  readonly target?: string;
}

/** The protected entries of a workspace at one moment. */
export interface GuardScan {
  readonly entries: GuardedEntry[];
  /** False when the workspace held more entries than a scan may visit: the rest is unknown. */
  readonly complete: boolean;
}

/** A protected entry a sandboxed call created or replaced, which the gate removed or put back. */
export interface RolledBack {
  /** Workspace-relative path. */
  readonly path: string;
  readonly change: 'created' | 'replaced';
  /** Why it is guarded. */
  readonly why: string;
  /** The grant that lets a call change it. */
  readonly grant: string;
}

/** Whether the person granted writes to a workspace-relative path (a scoped `fs:write:…` grant). */
export type GrantCheck = (relative: string) => boolean;

/** The check for a gate's grants: only a scoped grant (`fs:write:.vscode/**`) frees a protected path, as for the file tools. */
export function protectedWriteGrants(grants: readonly Capability[]): GrantCheck {
  const scoped = grants.filter((grant) => grant.split(':').length > 2);
  return (relative) => scoped.some((grant) => covers(grant, `fs:write:${relative}`));
}

/**
 * Folders a package manager owns and replaces whole (`npm ci` deletes node_modules): a package's own
 * `.git` or `.github` in there is neither held nor undone, or no install could run. Nothing in them
 * runs on its own: git, editors and CI do not look inside them.
 */
const PACKAGE_MANAGER_FOLDERS = new Set(['node_modules']);

/** The most entries one scan visits (a workspace of 5,000 files takes a few milliseconds). */
export const GUARD_SCAN_LIMIT = 200_000;

/**
 * Finds every protected entry at any depth of the workspace (protected names, see protectedPaths.ts,
 * and the code-bearing parts of each `.git` folder), without following symlinks and without walking
 * into protected folders or node_modules. Entries a grant covers are left out: the sandbox lets them through.
 */
export function scanGuarded(workspace: string, granted: GrantCheck, limit = GUARD_SCAN_LIMIT): GuardScan {
  const entries: GuardedEntry[] = [];
  const stack = [''];
  let visited = 0;
  while (stack.length > 0) {
    const folder = stack.pop()!;
    let listed: Dirent[];
    try {
      // The entry types come with the listing: only protected entries cost a stat of their own.
      listed = readdirSync(join(workspace, folder), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of listed) {
      if (++visited > limit) return { entries, complete: false };
      const relative = folder === '' ? entry.name : `${folder}/${entry.name}`;
      const match = mayBeProtected(entry.name) ? protectedMatch(relative) : undefined;
      if (match?.protectedPath !== relative) {
        if (entry.isDirectory() && !PACKAGE_MANAGER_FOLDERS.has(entry.name)) stack.push(relative);
        continue;
      }
      const stats = lstatOrUndefined(join(workspace, relative));
      if (!stats || granted(relative)) continue;
      entries.push(...guardedParts(workspace, relative, match, stats, granted));
    }
  }
  return { entries, complete: true };
}

/** One protected entry as the sandbox holds it: a `.git` folder pinned, with its code-bearing parts read-only. */
function guardedParts(workspace: string, relative: string, match: ProtectedMatch, stats: Stats, granted: GrantCheck): GuardedEntry[] {
  const absolute = join(workspace, relative);
  if (stats.isSymbolicLink()) return [{ relative, absolute, match, hold: 'link', target: readlinkSync(absolute) }];
  const inside = match.rule.codeInside;
  if (!inside || !stats.isDirectory()) return [{ relative, absolute, match, hold: 'read-only' }];
  const parts: GuardedEntry[] = [{ relative, absolute, match, hold: 'pinned' }];
  for (const child of inside) {
    const childRelative = `${relative}/${child}`;
    const childStats = lstatOrUndefined(join(workspace, childRelative));
    if (!childStats || granted(childRelative)) continue;
    parts.push(...guardedParts(workspace, childRelative, match, childStats, granted).map((part) => ({ ...part, hold: part.hold === 'link' ? part.hold : ('read-only' as const) })));
  }
  return parts;
}

/**
 * After a sandboxed call has ended (its processes are dead): removes every protected entry that was
 * not there before and puts back every guarded symlink it replaced. A read-only or pinned entry
 * cannot have changed (the mounts forbade it); what did not exist yet could not be mounted, so it
 * is undone here.
 */
export function rollBackGuarded(workspace: string, before: GuardScan, granted: GrantCheck): RolledBack[] {
  const known = new Map(before.entries.map((entry) => [entry.relative, entry]));
  const after = scanGuarded(workspace, granted);
  const rolledBack: RolledBack[] = [];
  const removed: string[] = [];
  for (const entry of after.entries.sort((a, b) => a.relative.length - b.relative.length)) {
    if (removed.some((folder) => entry.relative.startsWith(`${folder}/`))) continue;
    const old = known.get(entry.relative);
    if (old?.hold === 'link') {
      if (entry.hold === 'link' && entry.target === old.target) continue;
      rmSync(entry.absolute, { recursive: true, force: true });
      symlinkSync(old.target!, entry.absolute);
      rolledBack.push(describe(entry, 'replaced'));
      continue;
    }
    if (old) continue;
    rmSync(entry.absolute, { recursive: true, force: true });
    removed.push(entry.relative);
    rolledBack.push(describe(entry, 'created'));
  }
  // A guarded symlink the call removed outright comes back too.
  for (const old of before.entries) {
    if (old.hold !== 'link' || lstatOrUndefined(old.absolute)) continue;
    symlinkSync(old.target!, old.absolute);
    rolledBack.push(describe(old, 'replaced'));
  }
  return rolledBack;
}

function describe(entry: GuardedEntry, change: RolledBack['change']): RolledBack {
  return { path: entry.relative, change, why: entry.match.rule.why, grant: entry.match.grant };
}

function lstatOrUndefined(path: string): Stats | undefined {
  try {
    return lstatSync(path);
  } catch {
    return undefined;
  }
}
