import { isAbsolute } from 'node:path';

/**
 * Argument names that hold a path an upstream tool acts on (`path`, `paths`, `source`,
 * `destination`, `filePath`, `target_dir`, …). Other arguments (`content`, `edits`, `query`) are
 * the tool's data, never looked at as paths.
 */
const PATH_KEY = /(path|file|dir|folder|source|destination|^src$|^dest$|^target$|^from$|^to$)/i;

/** How deep into an upstream call's arguments paths are looked for, and how many are taken. */
const MAX_DEPTH = 4;
const MAX_PATHS = 100;

/** The paths an upstream call names, absolute ones apart from any other (relative ones, or more than are taken). */
export interface NamedPaths {
  /** Absolute paths, as given. */
  readonly absolute: string[];
  /** Whether some path argument was relative, empty, not a string, or past the bound: where it lands is not known. */
  readonly unknown: boolean;
}

/**
 * The paths an upstream tool's arguments name, under keys that name paths. Where a server resolves a
 * relative path is its own business (its working folder is not the gate's), so such a path counts as
 * unknown, and the caller scans the whole workspace rather than trust a guess.
 */
export function namedPaths(input: unknown): NamedPaths {
  const absolute: string[] = [];
  let unknown = false;
  const visit = (value: unknown, underPathKey: boolean, depth: number): void => {
    if (depth > MAX_DEPTH) {
      unknown ||= underPathKey;
      return;
    }
    if (Array.isArray(value)) {
      for (const item of value) visit(item, underPathKey, depth + 1);
      return;
    }
    if (typeof value === 'object' && value !== null) {
      for (const [key, inner] of Object.entries(value)) visit(inner, PATH_KEY.test(key), depth + 1);
      return;
    }
    if (!underPathKey) return;
    if (typeof value === 'string' && isAbsolute(value) && absolute.length < MAX_PATHS) absolute.push(value);
    else unknown = true;
  };
  visit(input, false, 0);
  return { absolute, unknown };
}
