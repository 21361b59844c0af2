import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * What a reviewed manifest tool is held to when it runs: the SHA-256 of its manifest file and of
 * the program or module it names. The gate writes them into the module path it hands the tool
 * process (`/path/tool.json#manifest=…&code=…`), so the tool process refuses a file that changed
 * after the gate checked it, and a changed manifest is loaded afresh rather than from its cache.
 */
export interface SourcePins {
  manifest: string;
  code?: string;
}

/** SHA-256 of a file's bytes, in hex (node:crypto: a program of many MiB is hashed in milliseconds). */
export function fileSha256(path: string): string {
  return sha256(readFileSync(path));
}

/** SHA-256 of bytes, in hex. */
export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/** The module path a tool process is given for a pinned manifest. */
export function pinnedModule(manifestPath: string, pins: SourcePins): string {
  return `${manifestPath}#manifest=${pins.manifest}${pins.code ? `&code=${pins.code}` : ''}`;
}

/** A module path split into the manifest's path and its pins (none for a manifest given with --tools). */
export function splitPinnedModule(module: string): { path: string; pins?: SourcePins } {
  const hash = module.indexOf('#');
  if (hash === -1) return { path: module };
  const params = new URLSearchParams(module.slice(hash + 1));
  const manifest = params.get('manifest') ?? '';
  const code = params.get('code');
  return { path: module.slice(0, hash), pins: { manifest, ...(code ? { code } : {}) } };
}
