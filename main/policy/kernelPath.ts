import { realpathSync } from 'node:fs';
import { join, sep } from 'node:path';

/**
 * An absolute path as the kernel takes it: a `..` that follows a symlink leads beside the link's
 * target (`ws/link/../x`), not where a lexical resolve puts it (`ws/x`), so the folder up to the
 * last `..` is resolved by the kernel's own realpath (Node's resolves `..` by the text first). A
 * path whose `..` cannot be resolved is returned as it is, `..` and all: where it leads is unknown.
 */
export function kernelPath(path: string): string {
  const parts = path.split(sep);
  const lastUp = parts.lastIndexOf('..');
  if (lastUp < 0) return path;
  try {
    return join(realpathSync.native(parts.slice(0, lastUp + 1).join(sep) || sep), ...parts.slice(lastUp + 1));
  } catch {
    return path;
  }
}
