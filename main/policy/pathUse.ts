import type { PathAccess } from './pathRule';
import type { RedirectedPath } from './shellRule';

/**
 * What the readers of a shell line's paths (commandPaths.ts, gitStoreUses.ts, handedUses.ts) report,
 * and where they place the line's words.
 */

/** One file or folder a line reads or writes, as far as it is known before it runs. */
export interface PathUse {
  readonly accesses: readonly PathAccess[];
  /** The word or redirection as written, for the prompt and the decision's provenance. */
  readonly written: string;
  /** The absolute paths it may name (not yet resolved through symlinks); several for a glob or a `cd`. */
  readonly paths: readonly string[];
  /** Whether the program reaches everything below these paths (recursive, or unknown). */
  readonly below: boolean;
  /** Why where it leads is only known when the line runs, if it is. */
  readonly unknown?: string;
  /** The redirection it comes from, when it does. */
  readonly redirect?: RedirectedPath;
}

/** Where a line's words are placed. */
export interface CommandPlace {
  /** The folder the line starts in (absolute). */
  readonly cwd: string;
  /** HOME, for `~`. */
  readonly home: string;
  /** The passwd file for `~user` (the system's by default). */
  readonly passwdFile?: string;
}

/** Where the line may be when a word is read: the folders a `cd` may have moved it to. */
export interface Folders {
  cwds: string[];
  unknown?: string;
  /** Every variable assignment on the line, wherever it stands (`export GIT_DIR=x; …` sets it for what follows). */
  readonly assignments: readonly string[];
}

/** Read and written. */
export const BOTH: readonly PathAccess[] = ['read', 'write'];
