import { spawnSync } from 'node:child_process';
import { existsSync, lstatSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { SideEffect } from '../../shared/manifest';

/** How the gate isolates tool processes: bubblewrap when the machine has it, nothing otherwise. */
export type SandboxMode = 'auto' | 'require' | 'off';

/** Whether tool processes run in an OS sandbox on this machine, and why not when they don't. */
export type SandboxInfo = { kind: 'bubblewrap'; command: string; version: string } | { kind: 'none'; reason: string };

/** What one tool process may do inside its sandbox; processes are shared only within one profile. */
export interface SandboxProfile {
  /** The workspace is mounted writable (tools declaring FsWrite, outside dry runs). */
  writeWorkspace: boolean;
  /** The host network is reachable (tools declaring NetRead or NetWrite). */
  network: boolean;
}

/** Files in the workspace that run code when a shell, git or an editor touches them: never writable. */
const PROTECTED_IN_WORKSPACE = [
  '.git/hooks',
  '.git/config',
  '.bashrc',
  '.bash_profile',
  '.bash_login',
  '.bash_logout',
  '.profile',
  '.zshrc',
  '.zprofile',
  '.zshenv',
  '.zlogin',
  '.config/fish',
];

/** The sandbox profile a tool needs, from its declared side effects. */
export function profileFor(sideEffects: readonly SideEffect[], dryRun: boolean): SandboxProfile {
  return {
    writeWorkspace: !dryRun && sideEffects.includes('FsWrite'),
    network: sideEffects.includes('NetRead') || sideEffects.includes('NetWrite'),
  };
}

/** Finds out whether bubblewrap can make a sandbox here (it needs user or mount namespaces). */
export function detectSandbox(mode: SandboxMode, command = 'bwrap'): SandboxInfo {
  if (mode === 'off') return { kind: 'none', reason: 'the sandbox was turned off (--sandbox off)' };
  if (process.platform !== 'linux') return { kind: 'none', reason: `bubblewrap needs Linux; this is ${process.platform}` };
  const version = spawnSync(command, ['--version'], { encoding: 'utf8', timeout: 5_000 });
  if (version.error || version.status !== 0) {
    return { kind: 'none', reason: `bubblewrap (${command}) is not installed; install it (apt-get install bubblewrap) and restart the gate` };
  }
  const trial = spawnSync(command, [...baseArguments({ writeWorkspace: false, network: false }), '--', 'true'], {
    encoding: 'utf8',
    timeout: 5_000,
  });
  if (trial.error || trial.status !== 0) {
    const why = (trial.stderr || trial.error?.message || `exit code ${trial.status}`).trim();
    return { kind: 'none', reason: `bubblewrap is installed but cannot make a sandbox here: ${why}` };
  }
  return { kind: 'bubblewrap', command, version: version.stdout.trim() };
}

function baseArguments(profile: SandboxProfile): string[] {
  const args = ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp'];
  args.push('--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try');
  if (!profile.network) args.push('--unshare-net');
  // Root inside the sandbox must not be able to remount what is read-only.
  if (process.getuid?.() === 0) args.push('--cap-drop', 'ALL');
  args.push('--die-with-parent', '--new-session');
  return args;
}

/** Where one sandbox puts things. */
export interface SandboxLayout {
  /** Real path of the workspace. */
  workspace: string;
  /** Folders the tool process must read although they live under /tmp (Toolgate, tool modules). */
  readable: readonly string[];
  /** Folders no tool may see at all (the state folder: audit log, token, secrets). */
  hidden: readonly string[];
}

/** The protected paths that exist in a workspace right now (a process is made anew when they change). */
export function protectedPaths(workspace: string): string[] {
  // Rc files outside the workspace are read-only already (the whole root is): only what lies inside
  // the writable workspace needs a mount of its own. One listing of the workspace answers for most
  // of them; this runs before every call.
  let top: Set<string>;
  try {
    top = new Set(readdirSync(workspace));
  } catch {
    return [];
  }
  return PROTECTED_IN_WORKSPACE.filter((relative) => top.has(relative.split('/')[0]!))
    .map((relative) => join(workspace, relative))
    .filter((path) => !path.slice(workspace.length + 1).includes('/') || exists(path));
}

function exists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** The bubblewrap arguments (before `--` and the command) for one profile and layout. */
export function bubblewrapArguments(profile: SandboxProfile, layout: SandboxLayout): string[] {
  const args = baseArguments(profile);
  for (const path of layout.readable) if (existsSync(path)) args.push('--ro-bind', path, path);
  args.push(profile.writeWorkspace ? '--bind' : '--ro-bind', layout.workspace, layout.workspace);
  const guarded = protectedPaths(layout.workspace);
  // The folders holding protected paths become mount points too: a mount point cannot be renamed
  // or removed, so `.git` cannot be moved aside and replaced by one with hooks of the tool's own.
  for (const folder of new Set(guarded.map((path) => dirname(path)).filter((folder) => folder !== layout.workspace))) {
    args.push(profile.writeWorkspace ? '--bind' : '--ro-bind', folder, folder);
  }
  for (const path of guarded) args.push('--ro-bind', path, path);
  for (const path of layout.hidden) if (existsSync(path)) args.push('--tmpfs', path);
  args.push('--chdir', layout.workspace);
  return args;
}
