import { baseName } from '../tools/shell/programWords';
import { gitSubcommandIndex, mayBeGitAlias } from './gitCommands';

/** git subcommands that write the work tree (and so may make a symbolic link where a file was, or was not). */
const GIT_TREE_WRITERS = new Set([
  'am', 'apply', 'checkout', 'checkout-index', 'cherry-pick', 'clone', 'merge', 'pull', 'read-tree', 'rebase', 'reset', 'restore', 'revert', 'stash', 'submodule', 'switch', 'worktree',
]);
/** Programs that unpack archives, whose members may be links. */
const UNPACKERS = new Set(['unzip', 'cpio', 'patch']);
/** Programs that make, copy or move links themselves. */
const LINKERS = new Set(['ln', 'cp', 'mv', 'rsync', 'install']);

/**
 * Why the program `argv` runs may leave symbolic links behind in the workspace (tar or unzip
 * extracting, git writing the work tree, ln, cp or mv copying or moving links), if it may: a path a
 * later command of the same line names may then lead anywhere, though it did not exist, or was
 * no link, when the line was judged.
 */
export function mayMakeLinks(argv: readonly string[]): string | undefined {
  const program = baseName(argv[0] ?? '');
  const args = argv.slice(1);
  if (program === 'tar' || program === 'bsdtar') {
    const extracts = args.some((arg) => arg === '--extract' || arg === '--get' || (!arg.startsWith('--') && /^-?[A-Za-z]*x[A-Za-z]*$/.test(arg)));
    return extracts ? `${program} extracting` : undefined;
  }
  if (program === '7z' || program === '7za') return args[0] === 'x' || args[0] === 'e' ? `${program} extracting` : undefined;
  if (UNPACKERS.has(program) || LINKERS.has(program)) return program;
  if (program === 'git') {
    const subcommand = argv[gitSubcommandIndex(argv)];
    // A subcommand git does not know (an alias) may be any of them.
    if (subcommand === undefined || GIT_TREE_WRITERS.has(subcommand) || mayBeGitAlias(subcommand)) return `git ${subcommand ?? ''}`.trim();
    return undefined;
  }
  return undefined;
}
