import { lstatSync, readdirSync, rmdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { PRIVATE_SCRATCH_ENV } from './sandbox';

/** The scratch folders a sandbox gives each tool process a tmpfs of its own for. */
const SCRATCH_FOLDERS = ['/tmp', '/dev/shm'];

/**
 * Empties /tmp and /dev/shm between two calls of a reused sandboxed process, so no call sees what
 * the one before it left there. Only inside the sandbox (bubblewrap sets the variable): bare, these
 * are the machine's own. Never crosses into another file system: the workspace or Toolgate itself
 * may be mounted below /tmp.
 */
export function clearPrivateScratch(): void {
  if (process.env[PRIVATE_SCRATCH_ENV] !== '1') return;
  for (const folder of SCRATCH_FOLDERS) {
    let device: number;
    try {
      device = statSync(folder).dev;
    } catch {
      continue;
    }
    for (const name of safeList(folder)) removeOnDevice(join(folder, name), device);
  }
}

function removeOnDevice(path: string, device: number): void {
  try {
    const stats = lstatSync(path);
    if (stats.dev !== device) return;
    if (!stats.isDirectory()) return unlinkSync(path);
    for (const name of safeList(path)) removeOnDevice(join(path, name), device);
    rmdirSync(path);
  } catch {
    // A folder that holds a mount point stays (with the mount); whatever else is gone.
  }
}

function safeList(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch {
    return [];
  }
}
