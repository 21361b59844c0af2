import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { SideEffect } from '../../shared/manifest';
import type { GrantCheck, GuardScan } from './workspaceGuard';

/** How the gate isolates tool processes: bubblewrap when the machine has it, nothing otherwise. */
export type SandboxMode = 'auto' | 'require' | 'off';

/** Whether tool processes run in an OS sandbox on this machine, and why not when they don't. */
export type SandboxInfo =
  /** `sizedTmpfs`: bubblewrap can cap a tmpfs's size (`--size`, 0.8 and later); older ones leave /tmp uncapped. */
  | { kind: 'bubblewrap'; command: string; version: string; sizedTmpfs?: boolean }
  | { kind: 'none'; reason: string };

/** What one tool process may do inside its sandbox; processes are shared only within one profile. */
export interface SandboxProfile {
  /** The workspace is mounted writable (tools declaring FsWrite, outside dry runs). */
  writeWorkspace: boolean;
  /** The host network is reachable (tools declaring NetRead or NetWrite). */
  network: boolean;
  /** The tool starts processes of its own (ProcessSpawn): its sandbox serves that one call only. */
  spawnsProcesses: boolean;
}

/** The sandbox profile a tool needs, from its declared side effects. */
export function profileFor(sideEffects: readonly SideEffect[], dryRun: boolean): SandboxProfile {
  return {
    writeWorkspace: !dryRun && sideEffects.includes('FsWrite'),
    network: sideEffects.includes('NetRead') || sideEffects.includes('NetWrite'),
    spawnsProcesses: sideEffects.includes('ProcessSpawn'),
  };
}

/**
 * The bubblewraps found able to make a sandbox in this process, by command and PATH. Finding out
 * runs it three times, each a fork of this process: from a gate holding a few hundred MB that is
 * 100–175 ms of CPU, and as long with its thread blocked, at every start of a gate.
 */
const working = new Map<string, SandboxInfo>();

/**
 * Finds out whether bubblewrap can make a sandbox here (it needs user or mount namespaces). A
 * bubblewrap that could is not tried again in this process; one that could not is tried at every
 * start, so a person who installs it, as the reason asks, has it at the next start of the gate.
 */
export function detectSandbox(mode: SandboxMode, command = 'bwrap'): SandboxInfo {
  if (mode === 'off') return { kind: 'none', reason: 'the sandbox was turned off (--sandbox off)' };
  if (process.platform !== 'linux') return { kind: 'none', reason: `bubblewrap needs Linux; this is ${process.platform}` };
  const key = `${command}\0${process.env.PATH ?? ''}`;
  const known = working.get(key);
  if (known) return known;
  const version = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (version.error || version.status !== 0) {
    return { kind: 'none', reason: `bubblewrap (${command}) is not installed; install it (apt-get install bubblewrap) and restart the gate` };
  }
  const help = spawnSync(command, ['--help'], { encoding: 'utf8', timeout: 5_000 });
  const sizedTmpfs = /--size\b/.test(help.stdout ?? '');
  const trial = spawnSync(command, [...baseArguments({ writeWorkspace: false, network: false, spawnsProcesses: false }, sizedTmpfs), '--', 'true'], {
    encoding: 'utf8',
    timeout: 5_000,
  });
  if (trial.error || trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit code ${trial.status}`).trim();
    return { kind: 'none', reason: `bubblewrap is installed but cannot make a sandbox here: ${why}` };
  }
  // `bwrap --version` says "bubblewrap 0.8.0": the number alone, as the banner puts it after the name.
  const found: SandboxInfo = Object.freeze({ kind: 'bubblewrap', command, version: version.stdout.trim().replace(/^bubblewrap\s+/i, ''), sizedTmpfs } as const);
  working.set(key, found);
  return found;
}

/** Bytes a call may keep in its private /tmp (a tmpfs of its own; writing past it fails with ENOSPC). */
export const TMP_BYTES = 256 * 1024 * 1024;
/** Bytes a call may keep in its private /dev/shm. */
export const SHM_BYTES = 64 * 1024 * 1024;
/** The descriptor on which bubblewrap reads the seccomp program (see childProcessHost's extra pipe). */
export const SECCOMP_FD = 4;
/** Set inside the sandbox: /tmp and /dev/shm are the process's own, and are emptied between calls. */
export const PRIVATE_SCRATCH_ENV = 'TOOLGATE_PRIVATE_SCRATCH';

function baseArguments(profile: SandboxProfile, sizedTmpfs: boolean): string[] {
  return [...isolationArguments(profile.network, sizedTmpfs), '--setenv', PRIVATE_SCRATCH_ENV, '1'];
}

/**
 * The isolation every sandbox starts from (tool processes and upstream MCP servers alike): the root
 * read-only, private /dev/shm, /proc and /tmp, its own pid, ipc and uts namespaces, no network
 * unless `network`, no capabilities when run as root, and gone with the gate.
 */
export function isolationArguments(network: boolean, sizedTmpfs: boolean): string[] {
  const size = (bytes: number) => (sizedTmpfs ? ['--size', String(bytes)] : []);
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', ...size(SHM_BYTES), '--tmpfs', '/dev/shm'];
  args.push('--proc', '/proc', ...size(TMP_BYTES), '--tmpfs', '/tmp');
  // The sandbox's init (bubblewrap, pid 1) outlives every process of the call: no one may write into
  // its memory. ptrace is refused by the seccomp program; its memory file is masked here.
  args.push('--ro-bind', '/dev/null', '/proc/1/mem', '--ro-bind', '/dev/null', '/proc/1/task/1/mem');
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!network) args.push('--unshare-net');
  // Root inside the sandbox must not be able to remount what is read-only.
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
  args.push('--die-with-parent', '--new-session');
  return args;
}

/** Where one sandbox puts things. */
export interface SandboxLayout {
  /** Real path of the workspace. */
  workspace: string;
  /**
   * Folders and files the tool process must read although they may live under /tmp or in a hidden
   * folder (Toolgate, the Node or Electron running it, tool modules, the tools home's manifests and
   * the programs they name). Read each time a process starts, so paths added later count.
   */
  readable: readonly string[];
  /** Folders no tool may see at all (the state folder: audit log, token, secrets). */
  hidden: readonly string[];
  /** Whether the person granted writes to a workspace path that is protected (`--grant fs:write:.vscode/**`). */
  granted: GrantCheck;
}

/** The bubblewrap arguments (before `--` and the command) for one profile and layout. */
export function bubblewrapArguments(profile: SandboxProfile, layout: SandboxLayout, guard?: GuardScan, sizedTmpfs = true): string[] {
  const args = [...baseArguments(profile, sizedTmpfs), '--seccomp', String(SECCOMP_FD)];
  // The root is already bound read-only: binding it again would mount it over /tmp, /proc and /dev.
  const inHidden = (path: string) => layout.hidden.some((hidden) => path.startsWith(`${hidden}/`));
  for (const path of layout.readable) if (path !== '/' && !inHidden(path) && existsSync(path)) args.push('--ro-bind', path, path);
  args.push(profile.writeWorkspace ? '--bind' : '--ro-bind', layout.workspace, layout.workspace);
  // A read-only workspace needs nothing more; a writable one holds each protected entry that exists.
  if (profile.writeWorkspace && guard) args.push(...guardMounts(layout.workspace, guard));
  for (const path of layout.hidden) if (existsSync(path)) args.push('--tmpfs', path);
  // After the hiding: what must be read inside a hidden folder (the tools home's manifests) shows through it, read-only.
  for (const path of layout.readable) if (inHidden(path) && existsSync(path)) args.push('--ro-bind', path, path);
  args.push('--chdir', layout.workspace);
  return args;
}

/**
 * Mounts that hold the protected entries in place: each read-only or pinned over itself, and every
 * folder between the workspace and it pinned too. A mount point cannot be renamed, removed or
 * replaced, so no entry can be moved aside and swapped for one of the call's own, not even by
 * moving a folder that holds it. What does not exist yet cannot be mounted: rollBackGuarded undoes it.
 */
function guardMounts(workspace: string, guard: GuardScan): string[] {
  const holds = new Map<string, 'read-only' | 'pinned'>();
  for (const entry of guard.entries) {
    if (entry.hold === 'link') continue;
    const parts = entry.relative.split('/');
    for (let depth = 1; depth < parts.length; depth++) {
      const folder = parts.slice(0, depth).join('/');
      if (!holds.has(folder)) holds.set(folder, 'pinned');
    }
    holds.set(entry.relative, entry.hold);
  }
  // Outer mounts first: an inner one made before its folder is mounted over would be hidden.
  const ordered = [...holds].sort(([a], [b]) => a.split('/').length - b.split('/').length);
  return ordered.flatMap(([relative, hold]) => {
    const path = join(workspace, relative);
    return [hold === 'read-only' ? '--ro-bind' : '--bind', path, path];
  });
}
