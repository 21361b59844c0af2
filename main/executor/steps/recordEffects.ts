/**
 * Effects: what a call changed in the workspace, recorded in its audit record with the content
 * before it kept in the image store, so a person can undo it.
 *
 * How the changed paths are found:
 * - A file tool (write_file, edit_file, delete_path) names its path: that path, its folders and
 *   (for a folder) what is in it are looked at before and after the call.
 * - An upstream tool classed as writing files: the absolute workspace paths it names, else (it names
 *   none, a relative one or one outside) a workspace scan.
 * - A shell command may change anything in the workspace (bubblewrap here has no overlay to collect
 *   its writes), so the whole workspace is scanned before and after (so is Claude Code's host-run
 *   Bash): after the first scan, only what the kernel's watches say changed is stat'd again, and a
 *   file hashed only when its stat changed (WorkspaceWatcher). Every file's content is in the store
 *   before the command runs (each stored once, by hash), so whatever it deletes or rewrites can be put back.
 *
 * A change made by another program during the call cannot be told apart from the call's own: the
 * kernel does not say which process wrote a file, and the scan sees only before and after. What is
 * done about it: no other call of the gate that changes files runs meanwhile (the scheduler runs
 * them one at a time), so what is attributed to the call is its own or a program outside the gate
 * (the person's editor, a build watcher). Those land in the call's effects and show in the undo's
 * plan, file by file, before anything is written; and undo compares each file with the state the
 * call left it in, so a change made after the call ended is a conflict, never overwritten silently.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { basename, dirname, join, sep } from 'node:path';
import type { CallEffects, Effect } from '../../../shared/effects';
import { mutatingEffects, type ToolManifest } from '../../../shared/manifest';
import { countOf } from '../../../shared/plural';
import type { ImageStore } from '../../undo/imageStore';
import { scanPaths, type Snapshot } from '../../undo/snapshot';
import { WorkspaceWatcher } from '../../undo/workspaceWatcher';
import { diffSnapshots } from '../../undo/snapshotDiff';
import { confinePath } from '../../tools/workspacePath';
import { namedPaths } from '../../undo/namedPaths';

/** The built-in tools whose writes are found by scanning the whole workspace. */
const SCANNED_TOOLS: ReadonlySet<string> = new Set(['shell_exec']);

/** The built-in tools that change only the path they are given. */
const EXACT_PATH_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file', 'delete_path']);

/**
 * The most changes one call's record keeps: past it (a package install, a build) the rest are counted,
 * not listed, so one call cannot swell the audit log, and the call is not undoable.
 */
export const MAX_RECORDED_EFFECTS = 10_000;

/** One call being watched: end() says what it changed. */
export interface EffectsWatch {
  /**
   * What the call changed. A workspace scan first lets the event loop take in the kernel's news of the
   * call's last writes (see afterNextPoll).
   */
  end(): Promise<CallEffects>;
  /** The same at once, for a call that ends without its outcome (it timed out, the gate is stopping). */
  endNow(): CallEffects;
}

/** Watches the calls that may change the workspace and records what each changed. */
export class EffectsRecorder {
  /** Whole-workspace scans, kept between calls and brought up to date from what the kernel says changed. */
  private readonly scanner: WorkspaceWatcher;

  constructor(
    private readonly workspace: string,
    readonly store: ImageStore,
  ) {
    this.scanner = new WorkspaceWatcher(workspace);
  }

  /** The newest whole-workspace scan: exact-path scans reuse its hashes, the prompt its sizes. */
  private get lastScan(): Snapshot | undefined {
    return this.scanner.lastScan;
  }

  /** Stops watching the workspace (the gate is stopping). */
  close(): void {
    this.scanner.close();
  }

  /** Starts watching a call of `tool` (undefined when the tool is not one whose effects are recorded). */
  begin(tool: string, input: unknown): EffectsWatch | undefined {
    if (SCANNED_TOOLS.has(tool)) return this.watchWorkspace();
    if (!EXACT_PATH_TOOLS.has(tool)) return undefined;
    const path = this.workspacePath((input as { path?: unknown } | null)?.path);
    return path === undefined ? undefined : this.watchPaths([path]);
  }

  /**
   * What the prompt says of undoing the call before it is approved: nothing for a call that changes
   * nothing, "not undoable" with why for one whose changes are not recorded or that only reaches the
   * network, else "undoable", less what cannot be put back: files over the per-file limit, what it
   * sends over the network, what it changes outside the workspace.
   */
  undoability(manifest: ToolManifest, input: unknown, external: boolean): string | undefined {
    const effects = manifest.sideEffects;
    const net = effects.includes('NetRead') || effects.includes('NetWrite');
    const recorded = this.recordedAs(manifest, input, external);
    if (!recorded) {
      if (net) return 'not undoable: it reaches the network, and what was sent cannot be recalled';
      if (mutatingEffects(effects).length === 0) return undefined;
      return 'not undoable: what this tool changes is not recorded (only the built-in file tools, shell_exec and upstream tools classed as writing files are)';
    }
    const limit = this.store.maxFileBytes;
    let over = 0;
    if (recorded.method === 'workspace-scan') {
      // The last scan's sizes: a file grown past the limit since is found when the call runs (and listed then).
      for (const entry of this.lastScan?.values() ?? []) if (entry.type === 'file' && (entry.size ?? 0) > limit) over++;
    } else {
      for (const path of recorded.paths) if (sizeOf(join(this.workspace, path)) > limit) over++;
    }
    const except = [
      ...(over > 0 ? [`${countOf(over, 'file')} over the ${limit / 1e6} MB limit (listed, not kept)`] : []),
      ...('outside' in recorded && recorded.outside !== undefined ? [`what it changes outside the workspace (${recorded.outside})`] : []),
      ...(net ? ['what it sends over the network, which cannot be recalled'] : []),
    ];
    return except.length === 0 ? 'undoable' : `undoable except: ${except.join(', and ')}`;
  }

  /**
   * How a call's changes are recorded, or undefined when they are not: shell_exec's by a workspace
   * scan; a built-in file tool's on its path; an upstream tool classed as writing files on the
   * workspace paths it names, or by a workspace scan when it names none, a relative one (resolved by
   * the server, where the gate cannot tell) or one outside the workspace (`outside`, which no scan reaches).
   */
  private recordedAs(manifest: ToolManifest, input: unknown, external: boolean): { method: 'workspace-scan'; outside?: string } | { method: 'exact-paths'; paths: string[] } | undefined {
    const name = manifest.name;
    if (external) {
      if (!manifest.sideEffects.includes('FsWrite')) return undefined;
      const named = namedPaths(input);
      const inside = named.absolute.map((path) => this.workspacePath(path));
      const outside = named.absolute.find((_path, index) => inside[index] === undefined);
      if (named.unknown || named.absolute.length === 0 || outside !== undefined) return { method: 'workspace-scan', ...(outside !== undefined ? { outside } : {}) };
      return { method: 'exact-paths', paths: inside as string[] };
    }
    if (SCANNED_TOOLS.has(name)) return { method: 'workspace-scan' };
    if (!EXACT_PATH_TOOLS.has(name)) return undefined;
    const path = this.workspacePath((input as { path?: unknown } | null)?.path);
    return path === undefined ? undefined : { method: 'exact-paths', paths: [path] };
  }

  /** Starts watching a call of an upstream tool (undefined when it is not classed as writing files). */
  beginUpstream(manifest: ToolManifest, input: unknown): EffectsWatch | undefined {
    const recorded = this.recordedAs(manifest, input, true);
    if (!recorded) return undefined;
    return recorded.method === 'exact-paths' ? this.watchPaths(recorded.paths) : this.watchWorkspace();
  }

  /** The prompt's `undoable` field: undoability(), when there is something to say. */
  promptNote(manifest: ToolManifest, input: unknown, external: boolean): { undoable?: string } {
    const undoable = this.undoability(manifest, input, external);
    return undoable ? { undoable } : {};
  }

  /** Watches the whole workspace (a shell command, which may change anything in it). */
  watchWorkspace(): EffectsWatch {
    return this.watch('workspace-scan', () => this.scanner.scan());
  }

  /** Watches absolute paths (Claude Code's file tools give them so); those outside the workspace are left out. */
  watchAbsolute(paths: readonly string[]): EffectsWatch | undefined {
    const inside = paths.flatMap((path) => this.workspacePath(path) ?? []);
    return inside.length > 0 ? this.watchPaths(inside) : undefined;
  }

  /** Watches exact workspace-relative paths (what an undo writes). */
  watchPaths(paths: readonly string[]): EffectsWatch {
    return this.watch('exact-paths', () => scanPaths(this.workspace, paths, this.lastScan));
  }

  private watch(method: CallEffects['method'], scan: () => Snapshot): EffectsWatch {
    const started = performance.now();
    const before = scan();
    const tooLarge: string[] = [];
    // Before the call runs, every file it could change has its content in the store.
    for (const [path, entry] of before) {
      if (entry.type !== 'file' || !entry.hash) continue;
      const note = this.store.keep(entry.hash, entry.size ?? 0, () => readFileSync(join(this.workspace, path)));
      if (note.tooLarge) tooLarge.push(path);
    }
    let spent = performance.now() - started;
    const endNow = (): CallEffects => {
        const ended = performance.now();
        const after = scan();
        const changed = diffSnapshots(before, after);
        const effects = changed.slice(0, MAX_RECORDED_EFFECTS).map((effect) => this.withImages(effect));
        this.store.flush();
        spent += performance.now() - ended;
        const omitted = changed.length - effects.length;
        return { method, effects, ...(omitted > 0 ? { omitted } : {}), ...(tooLarge.length > 0 ? { tooLarge } : {}), recordMs: Math.round(spent * 1000) / 1000 };
    };
    return {
      endNow,
      end: async () => {
        if (method === 'workspace-scan') await afterNextPoll();
        return endNow();
      },
    };
  }

  /** Names the images of an effect's content before and after (after: read now, for redo and the three-way view). */
  private withImages(effect: Effect): Effect {
    const { before, after } = effect;
    const beforeImage = before?.type === 'file' && before.hash ? (this.store.noteFor(before.hash) ?? { tooLarge: true }) : undefined;
    let afterImage;
    if (after?.type === 'file' && after.hash) {
      const hash = after.hash;
      try {
        afterImage = this.store.keep(hash, after.size ?? 0, () => readFileSync(join(this.workspace, effect.path)));
      } catch {
        // Gone again already: nothing to keep of it.
      }
    }
    return { ...effect, ...(beforeImage ? { beforeImage } : {}), ...(afterImage ? { afterImage } : {}) };
  }

  /** A tool's path argument as a workspace-relative path with /, or undefined when it is none or leaves the workspace (the tool refuses it). */
  private workspacePath(requested: unknown): string | undefined {
    if (typeof requested !== 'string' || requested === '') return undefined;
    // Its folder as the file tools resolve it (symlinks followed, and refused when they lead out), its
    // last name as written: the gate looks only where the tool can write, never through a link outside.
    let folder: string;
    try {
      folder = confinePath(this.workspace, dirname(requested)).relative;
    } catch {
      return undefined;
    }
    const name = basename(requested);
    if (name === '' || name === '.' || name === '..') return undefined;
    return (folder === '' ? name : join(folder, name)).split(sep).join('/');
  }
}

/**
 * Resolves once the event loop has polled its file descriptors after this moment: every inotify event
 * of a write made before it is then delivered (libuv reads all of a loop's watches from one inotify
 * descriptor, each time it polls). Two turns, since a setImmediate made during a poll's callbacks runs
 * right after that same poll.
 */
function afterNextPoll(): Promise<void> {
  return new Promise((polled) => setImmediate(() => setImmediate(polled)));
}

/** A regular file's size, or 0 for anything else (absent, a folder, a symlink). */
function sizeOf(path: string): number {
  try {
    const stats = lstatSync(path);
    return stats.isFile() ? stats.size : 0;
  } catch {
    return 0;
  }
}
