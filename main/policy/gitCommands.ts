/**
 * What git runs for a command line: its global options (`-c k=v`, `-C dir`, `--git-dir=…`, `-p`, …)
 * come before the subcommand; a subcommand git does not know is an alias from some config file
 * (or a `git-NAME` program on the PATH) and may do anything another one does; some plumbing does
 * what a porcelain command does (`git send-pack` pushes as `git push` does).
 */

/** Git's own commands (builtins and the scripts it ships, 2.39): any other name is an alias or an outside program. */
const GIT_COMMANDS = new Set(
  (
    'add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout ' +
    'checkout-index cherry cherry-pick clean clone column commit commit-graph commit-tree config count-objects credential credential-cache ' +
    'credential-store daemon describe diagnose diff diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack ' +
    'filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id grep gui hash-object help hook ' +
    'http-backend http-fetch http-push imap-send index-pack init init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo ' +
    'mailsplit maintenance merge merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive merge-resolve ' +
    'merge-subtree merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id prune ' +
    'prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog remote repack replace request-pull rerere reset restore ' +
    'rev-list rev-parse revert rm send-email send-pack shell shortlog show show-branch show-index show-ref sparse-checkout stage stash status ' +
    'stripspace submodule subtree switch symbolic-ref tag unpack-file unpack-objects update-index update-ref update-server-info upload-archive ' +
    'upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree write-tree'
  ).split(' '),
);

/** Commands that do what another does, both ways: a rule naming one holds the others. */
const SAME_AS: readonly (readonly string[])[] = [
  ['push', 'send-pack', 'http-push'],
  ['fetch', 'fetch-pack', 'http-fetch'],
  ['checkout', 'switch', 'restore'],
  ['add', 'stage'],
  ['blame', 'annotate', 'pickaxe'],
];

/** Global options whose value is the next word when not glued with `=` (or, for -c and -C, glued: -ckey=v). */
const GLOBAL_WITH_VALUE = new Set(['-c', '-C', '--git-dir', '--work-tree', '--namespace', '--config-env', '--super-prefix', '--list-cmds']);

/** The index of git's subcommand in `words` (0 is git itself), past its global options; `words.length` when there is none. */
export function gitSubcommandIndex(words: readonly (string | undefined)[]): number {
  let at = 1;
  while (at < words.length) {
    const word = words[at];
    // A word only known at run time may be an option or the subcommand: the caller reads it as either.
    if (word === undefined || !word.startsWith('-')) return at;
    if (word === '--') return at + 1;
    at += GLOBAL_WITH_VALUE.has(word) ? 2 : 1;
  }
  return at;
}

/** Options `git submodule` takes before its verb. */
const SUBMODULE_QUIET = new Set(['-q', '--quiet']);

/**
 * How a git command's verb (`list` of `git stash list`) is found in the arguments after its name:
 * `as-git`, the first of them, as git reads it (`git stash -m list` is a push with the message
 * "list"), past the `--quiet` `submodule` takes before it; `past-options`, the first that is not an
 * option, past options git would refuse there too, for a check that may count a verb git never runs
 * but must miss none.
 */
export type GitVerbReading = 'as-git' | 'past-options';

/** The index of a git command's verb in `args` (the words after the subcommand's name), read as `reading` says; `args.length` when there is none. */
export function gitVerbIndex(subcommand: string, args: readonly string[], reading: GitVerbReading): number {
  const at = args.findIndex((arg) => (reading === 'past-options' ? !arg.startsWith('-') : subcommand !== 'submodule' || !SUBMODULE_QUIET.has(arg)));
  return at < 0 ? args.length : at;
}

/** The other commands a rule on `subcommand` holds (a rule on `push` also holds `send-pack`). */
export function gitCommandsLike(subcommand: string): readonly string[] {
  return SAME_AS.find((group) => group.includes(subcommand)) ?? [subcommand];
}

/** Whether git would read this subcommand as an alias or an outside program: then it may do what any other does. */
export function mayBeGitAlias(subcommand: string): boolean {
  return !GIT_COMMANDS.has(subcommand);
}
