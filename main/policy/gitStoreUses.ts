import { gitConfigWrites, gitRepositoryUses, type GitWord } from './gitRepositoryUses';
import type { Folders, PathUse } from './pathUse';

/**
 * git: the repository's stored files, which a command that prints or copies their content reads
 * whole; its work tree, which a command that changes it writes whole; its settings file, which
 * `git config` writes (gitRepositoryUses.ts). `words`: git and its arguments, undefined for a word
 * only known when the line runs; `written`: the command as written; `home`: HOME, for the user's
 * settings file.
 */
export function gitStoreUses(written: string, words: readonly GitWord[], folders: Folders, home: string): PathUse[] {
  const found = [
    { ...gitRepositoryUses(words, folders.assignments, folders.cwds), below: true },
    { ...gitConfigWrites(words, folders.assignments, folders.cwds, home), below: false },
  ];
  return found.flatMap((uses): PathUse[] => {
    if (uses.kind === 'none') return [];
    if (uses.kind === 'unknown' || folders.unknown) {
      return [{ accesses: uses.accesses, written, paths: [], below: true, unknown: uses.kind === 'unknown' ? uses.why : folders.unknown }];
    }
    return [{ accesses: uses.accesses, written: `git ${uses.subcommand}, which ${uses.does}`, paths: uses.folders, below: uses.below }];
  });
}
