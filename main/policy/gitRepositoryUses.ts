import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gitSubcommandIndex, mayBeGitAlias } from './gitCommands';

/**
 * What git reads of a repository's stored files beyond the paths a line names. Everything ever
 * committed is in the repository's objects: `git show HEAD:secret/key`, `git log -p` or `git grep x
 * HEAD` print a file's content without naming it as a path, and `git clone .` or `git archive HEAD`
 * copy every file out. A command that can print or copy stored content reads the whole repository,
 * as a recursive read of its top folder: a deny rule on any file inside it holds the command.
 * Commands that only list names or change the working files (`status`, `add`, `commit`) are not
 * counted here, unless asked to show the changes' hunks (`add -p`, `commit -v`); their path
 * arguments are judged as any program's.
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
  'function-context find-object textconv ext-diff'
).split(' ');
/** Options that make a diff print only names or counts. */
const NAMES_OPTION = /^(--stat.*|--numstat|--shortstat|--dirstat.*|--name-only|--name-status|--summary|--quiet|--exit-code|--raw|-s|--no-patch|--check)$/;

/** Options and variables that point git at another repository than the one around its folder. */
const ELSEWHERE_OPTIONS = new Set(['--git-dir', '--work-tree', '--namespace']);
const ELSEWHERE_VARIABLE = /^GIT_(DIR|WORK_TREE|OBJECT_DIRECTORY|ALTERNATE_OBJECT_DIRECTORIES|CEILING_DIRECTORIES|DISCOVERY_ACROSS_FILESYSTEM|COMMON_DIR)=/;

/** One git word: its value, or undefined when it is only known when the line runs. */
export type GitWord = string | undefined;

/** The repository folders a git command reads whole, or why they are only known when it runs; none when it reads no stored content. */
export type StoreReads = { kind: 'none' } | { kind: 'folders'; subcommand: string; folders: string[] } | { kind: 'unknown'; why: string };

/**
 * `words`: git and its arguments (index 0 is git); `assignments`: the line's variable assignments,
 * before git or anywhere else on the line (`export GIT_DIR=x; git show`); `cwds`: the folders the
 * line may be in.
 */
export function gitStoreReads(words: readonly GitWord[], assignments: readonly string[], cwds: readonly string[]): StoreReads {
  const at = gitSubcommandIndex(words);
  const subcommand = words[at];
  if (at >= words.length) return { kind: 'none' };
  if (subcommand !== undefined && !mayBeGitAlias(subcommand) && !printsContent(subcommand, words.slice(at + 1))) return { kind: 'none' };
  const shown = subcommand ?? 'a subcommand only known when the line runs';
  if (assignments.some((assignment) => ELSEWHERE_VARIABLE.test(assignment))) {
    return { kind: 'unknown', why: `git ${shown} reads stored files of a repository a variable points to` };
  }
  let starts = [...cwds];
  for (let index = 1; index < at; index++) {
    const word = words[index];
    const option = word?.split('=')[0];
    if (word === undefined || (option !== undefined && ELSEWHERE_OPTIONS.has(option))) {
      return { kind: 'unknown', why: `git ${shown} reads stored files of a repository its options name` };
    }
    if (word === '-C' || word.startsWith('-C')) {
      const folder = word === '-C' ? words[++index] : word.slice(2);
      if (folder === undefined) return { kind: 'unknown', why: `git ${shown} reads stored files of a folder only known when the line runs` };
      starts = starts.map((start) => resolve(start, folder));
    }
  }
  const tops: string[] = [];
  for (const start of starts) {
    const top = repositoryTop(start);
    if (typeof top !== 'string') return { kind: 'unknown', why: `git ${shown} reads stored files of ${top.elsewhere}` };
    tops.push(top);
  }
  return { kind: 'folders', subcommand: shown, folders: [...new Set(tops)] };
}

/** Whether a git command of git's own prints or copies stored content with these arguments (a word only known when it runs may be any option). */
function printsContent(subcommand: string, args: readonly GitWord[]): boolean {
  if (ALWAYS_READ.has(subcommand)) return true;
  const options: GitWord[] = [];
  for (const arg of args) {
    if (arg === '--') break;
    if (arg === undefined || arg.startsWith('-')) options.push(arg);
  }
  const asksContent = options.some((option) => option === undefined || CONTENT_OPTION.test(option) || abbreviates(option, CONTENT_LONG_OPTIONS));
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
