import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gitSubcommandIndex, gitVerbIndex, mayBeGitAlias } from './gitCommands';
import type { PathAccess } from './pathRule';

/**
 * What git reads and writes of a repository beyond the paths a line names.
 *
 * Reads: everything ever committed is in the repository's objects: `git show HEAD:secret/key`,
 * `git log -p` or `git grep x HEAD` print a file's content without naming it as a path, and `git
 * clone .` or `git archive HEAD` copy every file out. A command that can print or copy stored
 * content reads the whole repository, as a recursive read of its top folder: a deny rule on any
 * file inside it holds the command. Commands that only list names (`status`, `log --oneline`) are
 * not counted, unless asked to show hunks (`add -p`, `commit -v`).
 *
 * Writes: `git checkout main`, `git stash`, `git reset --hard`, `git clean -fdx`, `git pull`
 * rewrite or remove working files they never name, and a pathspec is git's own pattern (`git
 * checkout HEAD~1 -- '*.key'`, `git rm -r ':/'`), not a path the shell places. A command that
 * changes the work tree writes the whole of it, as a recursive write of the repository's top: a
 * deny of writing any file inside holds it, unless it is held to plain paths it names. It also
 * copies stored content out, under whatever name a revision, the index or a replace ref gives it
 * (`git checkout HEAD~1:secret -- key`), so it reads the whole repository too, unless it only
 * removes or moves files (`rm`, `clean`, `mv`). `add`, `commit`, `fetch`, `push` only write in
 * `.git` (itself a protected folder) and are not counted; `git config` writes its settings file.
 *
 * Other path arguments are judged as any program's.
 */

/**
 * Git commands that print, copy out or serve the content of stored files, from any revision,
 * whatever their options: a note or a pack can hold any file's content, a daemon serves it all.
 */
const ALWAYS_READ = new Set(
  (
    'annotate archive blame bundle cat-file checkout-index clone daemon difftool fast-export format-patch fsck grep http-backend instaweb merge-tree ' +
    'notes pack-objects range-diff request-pull send-email show unpack-file upload-archive upload-pack worktree'
  ).split(' '),
);
/** Commands that list refs, and print what they point to in the format asked for. */
const FORMAT_PRINTERS = new Set(['for-each-ref', 'tag', 'branch']);
/** Commands that print changes as patches unless told to print only names or counts. */
const PATCH_UNLESS_NAMES = new Set(['diff']);
/** Commands that print patches only when asked (`git log -p`). */
const PATCH_ON_REQUEST = new Set(['log', 'whatchanged', 'reflog', 'diff-tree', 'diff-index', 'diff-files']);
/** Commands that show the changes they work on, hunk by hunk, only when asked (`git add -p`, `git commit -v`, `git status -v`). */
const HUNKS_ON_REQUEST = new Set(['add', 'checkout', 'commit', 'reset', 'restore', 'stash', 'status', 'switch']);
/** Options that show hunks: -p, -i, -v, alone or in a cluster; their long forms are HUNK_LONG_OPTIONS. */
const HUNK_OPTION = /^-[a-zA-Z0-9]*[piv][a-zA-Z0-9]*$/;
const HUNK_LONG_OPTIONS = ['patch', 'interactive', 'verbose'];
/**
 * Options that print content: patches, searches of it (`-S`, `-G`), line ranges. A cluster of short
 * options (`-pn`) counts when one of its letters does.
 */
const CONTENT_OPTION = /^(-[a-zA-Z0-9]*[pu][a-zA-Z0-9]*|-[SGLUW].*|--patch.*|--pickaxe.*|--word-diff.*|--color-words.*|--cc|-c|-m|--full-diff|--binary|--text|--unified.*|--function-context|--find-object.*|--textconv|--ext-diff)$/;
/** Long options that print content, which git also takes by any prefix only they begin with (`--pat` is --patch). */
const CONTENT_LONG_OPTIONS = (
  'patch patch-with-stat patch-with-raw pickaxe-all pickaxe-regex word-diff word-diff-regex color-words cc full-diff binary text unified ' +
  'function-context find-object textconv ext-diff notes show-notes'
).split(' ');
/** A format that prints a commit's notes (`%N`), which may hold any stored file. */
function printsNotes(option: string): boolean {
  const format = /^--([a-z-]+)=(.*)$/s.exec(option);
  return format !== null && ['format', 'pretty'].some((name) => name.startsWith(format[1]!)) && format[2]!.includes('%N');
}
/** Options that make a diff print only names or counts (`--exit-code`, `--check` and `--summary` print the patch, or lines of it, too). */
const NAMES_OPTION = /^(--stat.*|--numstat|--shortstat|--dirstat.*|--name-only|--name-status|--quiet|--raw|-s|--no-patch)$/;

/** Options and variables that point git at another repository than the one around its folder. */
const ELSEWHERE_OPTIONS = new Set(['--git-dir', '--work-tree', '--namespace']);
const ELSEWHERE_VARIABLE = /^GIT_(DIR|WORK_TREE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|COMMON_DIR)=/;

/** One git word: its value, or undefined when it is only known when the line runs. */
export type GitWord = string | undefined;

/**
 * The repository folders a git command reads or writes whole (`accesses`), or why they are only
 * known when it runs; none when it neither prints stored content nor changes the work tree.
 */
export type RepositoryUses =
  | { kind: 'none' }
  | { kind: 'folders'; subcommand: string; folders: string[]; accesses: PathAccess[]; does: string }
  | { kind: 'unknown'; why: string; accesses: PathAccess[] };

/**
 * `words`: git and its arguments (index 0 is git); `assignments`: the line's variable assignments,
 * before git or anywhere else on the line (`export GIT_DIR=x; git show`); `cwds`: the folders the
 * line may be in.
 */
export function gitRepositoryUses(words: readonly GitWord[], assignments: readonly string[], cwds: readonly string[]): RepositoryUses {
  const at = gitSubcommandIndex(words);
  const subcommand = words[at];
  if (at >= words.length) return { kind: 'none' };
  const args = words.slice(at + 1);
  if ((subcommand === 'init' || subcommand === 'clone') && args.some((arg) => arg === undefined || abbreviates(arg, ['template']))) {
    return { kind: 'unknown', why: `git ${subcommand} --template copies a folder's hooks, programs git runs, into the repository it makes`, accesses: ['read', 'write'] };
  }
  // An alias, or a subcommand only known when the line runs, may be any of git's commands.
  const any = subcommand === undefined || mayBeGitAlias(subcommand);
  // Writing the work tree from the store copies stored content out (`git checkout REV:secret -- key`),
  // unless it only removes or moves files; a write held to plain paths it names is judged by them.
  const changesTree = any || writesTree(subcommand, args);
  const prints = any || printsContent(subcommand, args);
  const reads = prints || (changesTree && !ONLY_REMOVE_OR_MOVE.has(subcommand));
  const writes = changesTree && (any || !writesOnlyNamed(subcommand, words, at, assignments));
  if (!reads && !writes) return { kind: 'none' };
  const accesses: PathAccess[] = [...(reads ? (['read'] as const) : []), ...(writes ? (['write'] as const) : [])];
  const shown = subcommand ?? 'a subcommand only known when the line runs';
  // A write held to the paths it names (`checkout REV -- path`, `restore path`) reads by copying stored files out, not by printing them.
  const readsOnly = prints ? 'can print any file the repository holds' : 'can copy any file the repository holds into its work tree';
  const does = reads && writes ? 'can print any file the repository holds and rewrite any of its work tree' : reads ? readsOnly : 'can rewrite or remove any file of its work tree';
  const touches = reads && writes ? 'reads and writes the files' : reads ? 'reads stored files' : 'writes the working files';
  const tops = repositoryTops(words, at, assignments, cwds, `git ${shown} ${touches}`);
  if ('why' in tops) return { kind: 'unknown', why: tops.why, accesses };
  return { kind: 'folders', subcommand: shown, folders: tops.folders, accesses, does };
}

/** Options of `git config` that only read settings. */
const CONFIG_READS = /^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|-l|--list)$/;
/** Options of `git config` that write settings (a key and a value given alone write too). */
const CONFIG_WRITES = /^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|-e|--edit)$/;
/** The subcommands of `git config` (2.46 and later) that write settings. */
const CONFIG_WRITE_VERBS = new Set(['set', 'unset', 'rename-section', 'remove-section', 'edit']);
/** Variables that point `git config` at another file than the one its scope names. */
const CONFIG_ELSEWHERE = /^GIT_CONFIG(_GLOBAL|_SYSTEM)?=/;

/** Which settings file a `git config` line writes: none (a read, or another command), one its options name, or one only known when it runs. */
export type GitConfigTarget = 'none' | 'unknown' | 'file' | 'repository' | 'worktree' | 'global' | 'system';

/** Which settings file `git config` writes with these words (index 0 is git). */
export function gitConfigTarget(words: readonly GitWord[]): GitConfigTarget {
  const at = gitSubcommandIndex(words);
  if (words[at] !== 'config') return 'none';
  const args = words.slice(at + 1);
  const options = args.filter((arg) => arg === undefined || arg.startsWith('-'));
  if (options.includes(undefined)) return 'unknown';
  const given = options as string[];
  const operands = args.filter((arg): arg is string => arg !== undefined && !arg.startsWith('-'));
  const writes = given.some((option) => CONFIG_WRITES.test(option)) || CONFIG_WRITE_VERBS.has(operands[0] ?? '') || operands.length >= 2;
  if (!writes || given.some((option) => CONFIG_READS.test(option))) return 'none';
  if (given.some((option) => /^(-f|--file|--blob)(=|$)/.test(option))) return 'file';
  return given.includes('--global') ? 'global' : given.includes('--system') ? 'system' : given.includes('--worktree') ? 'worktree' : 'repository';
}

/**
 * The settings file `git config` writes, when it writes one: the repository's `.git/config` (a
 * protected file: its settings name programs git runs, an alias among them), `config.worktree`,
 * `~/.gitconfig` and `~/.config/git/config`, or `/etc/gitconfig`. A file `--file` names is judged
 * as any path argument. None for a read (`--get`, `--list`, a key alone).
 */
export function gitConfigWrites(words: readonly GitWord[], assignments: readonly string[], cwds: readonly string[], home: string): RepositoryUses {
  const target = gitConfigTarget(words);
  if (target === 'none' || target === 'file') return { kind: 'none' };
  const accesses: PathAccess[] = ['write'];
  const does = "writes git's settings, which name programs git runs";
  if (target === 'unknown' || assignments.some((assignment) => CONFIG_ELSEWHERE.test(assignment))) {
    return { kind: 'unknown', why: 'git config writes a settings file only known when the line runs', accesses };
  }
  if (target === 'global') return { kind: 'folders', subcommand: 'config', folders: [join(home, '.gitconfig'), join(home, '.config/git/config')], accesses, does };
  if (target === 'system') return { kind: 'folders', subcommand: 'config', folders: ['/etc/gitconfig'], accesses, does };
  const tops = repositoryTops(words, gitSubcommandIndex(words), assignments, cwds, 'git config writes the settings');
  if ('why' in tops) return { kind: 'unknown', why: tops.why, accesses };
  return { kind: 'folders', subcommand: 'config', folders: tops.folders.map((top) => join(top, '.git', target === 'worktree' ? 'config.worktree' : 'config')), accesses, does };
}

/**
 * The top folders of the repositories git works on, from every folder the line may be in and the
 * `-C` options before its subcommand (`at`); or why they are only known when it runs (`what`
 * begins the reason: "git show reads stored files").
 */
function repositoryTops(words: readonly GitWord[], at: number, assignments: readonly string[], cwds: readonly string[], what: string): { folders: string[] } | { why: string } {
  if (assignments.some((assignment) => ELSEWHERE_VARIABLE.test(assignment))) return { why: `${what} of a repository a variable points to` };
  let starts = [...cwds];
  for (let index = 1; index < at; index++) {
    const word = words[index];
    const option = word?.split('=')[0];
    if (word === undefined || (option !== undefined && ELSEWHERE_OPTIONS.has(option))) return { why: `${what} of a repository its options name` };
    if (word === '-C' || word.startsWith('-C')) {
      const folder = word === '-C' ? words[++index] : word.slice(2);
      if (folder === undefined) return { why: `${what} of a folder only known when the line runs` };
      starts = starts.map((start) => resolve(start, folder));
    }
  }
  const tops: string[] = [];
  for (const start of starts) {
    const top = repositoryTop(start);
    if (typeof top !== 'string') return { why: `${what} of ${top.elsewhere}` };
    tops.push(top);
  }
  return { folders: [...new Set(tops)] };
}

/**
 * Options spelled as git takes them: a long name by any prefix of it (`--har` is --hard), a short
 * letter alone or in a cluster of short options (`-fdx`).
 */
interface Spelling {
  readonly longs: readonly string[];
  readonly shorts?: string;
}

/**
 * git commands that change the work tree. `only`: they do only with one of these options (`reset
 * --hard`); `unless`: they do not with one of these (`rm --cached`, `apply --check`), as long as
 * every option given is one of `quiet` (any other may undo it: `--no-cached`, `apply --stat
 * --apply`, or `-e -n`, where the n is -e's value); `readOnlyVerbs`: their subcommands
 * that leave it (`stash list`), given first. `clone` and `worktree add` make a new folder, which
 * they name (judged as any path).
 */
interface TreeWriter {
  readonly only?: Spelling;
  readonly unless?: Spelling;
  readonly quiet?: RegExp;
  readonly readOnlyVerbs?: readonly string[];
}
const TREE_WRITERS: Record<string, TreeWriter> = {
  am: {},
  apply: {
    unless: { longs: ['cached', 'check', 'stat', 'numstat', 'summary'] },
    quiet: /^(--cached|--check|--stat|--numstat|--summary|--verbose|--reverse|--recount|--unidiff-zero|--allow-empty|--quiet|-[vRzq]+)$/,
  },
  bisect: { readOnlyVerbs: ['log', 'view', 'visualize', 'terms', 'help'] },
  checkout: {},
  'checkout-index': {},
  'cherry-pick': {},
  clean: { unless: { longs: ['dry-run'], shorts: 'n' }, quiet: /^(--dry-run|--quiet|--force|-[ndxXqf]+)$/ },
  'filter-branch': {},
  merge: {},
  'merge-file': {},
  'merge-index': {},
  'merge-octopus': {},
  'merge-one-file': {},
  'merge-ours': {},
  'merge-recursive': {},
  'merge-resolve': {},
  'merge-subtree': {},
  mergetool: {},
  mv: {},
  pull: {},
  quiltimport: {},
  'read-tree': { only: { longs: [], shorts: 'u' } },
  rebase: {},
  rerere: {},
  reset: { only: { longs: ['hard', 'merge', 'keep'] } },
  restore: { unless: { longs: ['staged'], shorts: 'S' }, quiet: /^(--staged|--quiet|--source=.*|-s|-[Sq]+)$/ },
  revert: {},
  rm: { unless: { longs: ['cached', 'dry-run'], shorts: 'n' }, quiet: /^(--cached|--dry-run|--quiet|--force|--ignore-unmatch|-[rfnq]+)$/ },
  'sparse-checkout': { readOnlyVerbs: ['list'] },
  stash: { readOnlyVerbs: ['list', 'show', 'create', 'store', 'drop', 'clear'] },
  submodule: { readOnlyVerbs: ['status', 'summary'] },
  switch: {},
};
/**
 * What `git checkout -b topic` may add and still only start a branch where HEAD is, given no commit
 * to start it from (`-f` would reset the working files).
 */
const NEW_BRANCH = /^(-b|-B|-c|-C|--create|--force-create)$/;
const NEW_BRANCH_QUIET = /^(-b|-B|-c|-C|--create|--force-create|-q|--quiet|-t|--track|--no-track)$/;

/** Whether a git command of git's own changes the work tree with these arguments (a word only known when it runs may be any option). */
function writesTree(subcommand: string, args: readonly GitWord[]): boolean {
  const writer = TREE_WRITERS[subcommand];
  if (!writer) return false;
  const end = args.indexOf('--');
  const before = end < 0 ? args : args.slice(0, end);
  if (before.includes(undefined)) return true;
  const options = (before as string[]).filter((arg) => arg.startsWith('-'));
  const operands = (before as string[]).filter((arg) => !arg.startsWith('-'));
  const verb = before[gitVerbIndex(subcommand, before as string[], 'as-git')];
  if (verb !== undefined && writer.readOnlyVerbs?.includes(verb)) return false;
  if ((subcommand === 'checkout' || subcommand === 'switch') && end < 0 && operands.length === 1 && options.some((option) => NEW_BRANCH.test(option)) && options.every((option) => NEW_BRANCH_QUIET.test(option))) return false;
  const has = (spelling: Spelling | undefined) =>
    spelling !== undefined &&
    options.some((option) => abbreviates(option, spelling.longs) || (spelling.shorts !== undefined && new RegExp(`^-[a-zA-Z]*[${spelling.shorts}]`).test(option)));
  if (writer.only) return has(writer.only);
  // Only options known to leave the work tree (and to take no value) can spare it: then a cluster is safe to read.
  const spared = writer.unless !== undefined && writer.quiet !== undefined && options.every((option) => writer.quiet!.test(option)) && has(writer.unless);
  return !spared;
}

/** Work-tree writers that only remove or move files, copying nothing out of the store. */
const ONLY_REMOVE_OR_MOVE = new Set(['rm', 'clean', 'mv']);
/** Commands whose every operand is a pathspec (after `--` for checkout), and which write only the files it matches. */
const WRITES_LIMITED = new Set(['restore', 'rm', 'checkout']);
/** Options that reach past the pathspec: paths read from a file. */
const PAST_PATHSPEC = /^--pathspec-from-file.*$/;

/**
 * Whether a git command that changes the work tree writes only the files it names: its pathspecs
 * (after `--`, or every operand of `restore` and `rm`) are plain paths, with none of git's own
 * patterns (`*`, `?`, `[`, `\`, a `:` magic word), no `--pathspec-from-file`, and no global option or
 * variable that changes where or how git reads them (`-C`, `--icase-pathspecs`,
 * `GIT_ICASE_PATHSPECS=1`). What it copies out of the store is read all the same: a revision, the
 * index or a replace ref may map a named path to any stored file.
 */
function writesOnlyNamed(subcommand: string, words: readonly GitWord[], at: number, assignments: readonly string[]): boolean {
  if (!WRITES_LIMITED.has(subcommand)) return false;
  if (assignments.some((assignment) => assignment.startsWith('GIT_'))) return false;
  // Global options aside: -C moves where git places the paths, away from where the line's words are placed.
  if (at !== 1) return false;
  const args = words.slice(at + 1);
  if (args.includes(undefined)) return false;
  const given = args as string[];
  const end = given.indexOf('--');
  const before = end < 0 ? given : given.slice(0, end);
  if (before.some((arg) => PAST_PATHSPEC.test(arg) || abbreviates(arg, ['pathspec-from-file']))) return false;
  const everyOperand = subcommand === 'restore' || subcommand === 'rm';
  const pathspecs = end >= 0 ? given.slice(end + 1) : everyOperand ? before.filter((arg) => !arg.startsWith('-')) : [];
  // restore's -s/--source takes the next word as a revision, not a path: then only `--` says which words are paths.
  if (end < 0 && subcommand === 'restore' && before.some((arg) => arg === '-s' || arg === '--source')) return false;
  return pathspecs.length > 0 && pathspecs.every((path) => path !== '' && !/[*?[\]\\]/.test(path) && !path.startsWith(':'));
}

/** Whether git, with these words (index 0 is git), may write working files: of its work tree, or of a new one (`clone`, `worktree add`). */
export function gitWritesFiles(words: readonly GitWord[]): boolean {
  const at = gitSubcommandIndex(words);
  const subcommand = words[at];
  if (at >= words.length) return false;
  return subcommand === undefined || mayBeGitAlias(subcommand) || subcommand === 'clone' || subcommand === 'worktree' || writesTree(subcommand, words.slice(at + 1));
}

/** Whether a git command of git's own prints or copies stored content with these arguments (a word only known when it runs may be any option). */
function printsContent(subcommand: string, args: readonly GitWord[]): boolean {
  if (ALWAYS_READ.has(subcommand)) return true;
  const options: GitWord[] = [];
  for (const arg of args) {
    if (arg === '--') break;
    if (arg === undefined || arg.startsWith('-')) options.push(arg);
  }
  // A ref may point at any stored file (`git tag x HEAD:secret/key`): a format prints its content (`%(raw)`, `%(contents)`).
  if (FORMAT_PRINTERS.has(subcommand)) return options.some((option) => option === undefined || abbreviates(option, ['format']) || (subcommand === 'tag' && /^-n\d*$/.test(option)));
  const asksContent = options.some((option) => option === undefined || CONTENT_OPTION.test(option) || abbreviates(option, CONTENT_LONG_OPTIONS) || printsNotes(option));
  if (PATCH_UNLESS_NAMES.has(subcommand)) return asksContent || !options.some((option) => option !== undefined && NAMES_OPTION.test(option));
  if (HUNKS_ON_REQUEST.has(subcommand)) return options.some((option) => option === undefined || HUNK_OPTION.test(option) || abbreviates(option, HUNK_LONG_OPTIONS));
  return PATCH_ON_REQUEST.has(subcommand) && asksContent;
}

/** `--pat`, `--word-d`: a prefix git may read as one of these long options. */
function abbreviates(option: string, longs: readonly string[]): boolean {
  const name = /^--([a-z-]+)(=|$)/.exec(option)?.[1];
  return name !== undefined && longs.some((long) => long.startsWith(name));
}

/**
 * The top folder of the repository `folder` is in (where `.git` is), or the folder itself outside
 * any. Where git would find the stored files elsewhere, why: a `.git` file (a linked work tree or a
 * submodule) leads to another folder's store, and a folder not there yet is made by the line, which
 * may put a `.git` in it.
 */
function repositoryTop(folder: string): string | { elsewhere: string } {
  if (!existsSync(folder)) return { elsewhere: `the repository around ${folder}, a folder the line makes` };
  for (let at = folder; ; at = dirname(at)) {
    const dotGit = join(at, '.git');
    if (existsSync(dotGit)) return statSync(dotGit).isDirectory() ? at : { elsewhere: `the repository ${dotGit} (a file) leads to` };
    if (dirname(at) === at) return folder;
  }
}
