import type { SubCommand } from '../../shared/commandPreview';
import { baseName } from '../tools/shell/programWords';
import { gitSubcommandIndex } from './gitCommands';
import { gitWritesFiles } from './gitRepositoryUses';
import type { PathUse } from './pathUse';
import { PROGRAM_SPECS } from './programPaths';

/** Programs that unpack archives, whose members may be links. */
const UNPACKERS = new Set(['unzip', 'cpio', 'patch']);
/** Programs that make, copy or move links themselves. */
const LINKERS = new Set(['ln', 'cp', 'mv', 'rsync', 'install']);
/** Commands that only move the line to another folder (followed on their own). */
const FOLDER_CHANGES = new Set(['cd', 'pushd', 'popd']);

/**
 * Why the program `argv` runs may leave links behind in the workspace, symbolic or hard (tar or
 * unzip extracting, git writing the work tree, ln, cp or mv copying or moving links, any program the
 * gate does not know), if it may: a path a later command of the same line names may then lead
 * anywhere, though it did not exist, or was no link, when the line was judged.
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
    // Writing the work tree, git may write a link where a file was, or was not (an alias may be any command).
    return gitWritesFiles(argv) ? `git ${argv[gitSubcommandIndex(argv)] ?? ''}`.trim() : undefined;
  }
  if (program === 'find') return args.some((arg) => /^-(exec|execdir|ok|okdir)$/.test(arg)) ? 'find -exec' : undefined;
  // A program whose arguments the gate does not know may do anything (npm run, python, make, xargs),
  // links included, as its arguments are already judged as any file read and written.
  if (!Object.hasOwn(PROGRAM_SPECS, program) && !FOLDER_CHANGES.has(program)) return program === '' ? 'a program only known when the line runs' : program;
  return undefined;
}

/** Whether the command at `first` may still run when the one at `later` does: a pipeline, a background job, or a nested command (a substitution, a subshell) between them. */
export function runsBeside(commands: readonly SubCommand[], first: number, later: number): boolean {
  if (commands[first]!.nested || commands[later]!.nested) return true;
  return commands.slice(first, later).some((command) => command.connector === '|' || command.connector === '|&' || command.connector === '&');
}

/**
 * A path named on a line with a command that may leave links behind: that command may make it (or
 * a folder on its way) a link to anywhere, where nothing was or in place of what was there (`tar
 * -xf t.tar && cat src/evil/key.txt`, the archive holding src/evil -> ../secret; `tar -xf t.tar;
 * cat notes`, its notes a hard link to secret/key), so where it leads is unknown.
 */
export function madeLater(found: PathUse, linksMade: string): PathUse {
  if (found.unknown !== undefined || found.paths.length === 0) return found;
  return { ...found, unknown: `${linksMade} on the same line may make ${found.written} a link to anywhere` };
}

/** A word as commandPaths places it: as written, after quote removal, and whether bash computes part of it. */
interface PlacedWord {
  readonly raw: string;
  readonly value: string;
  readonly computed: boolean;
}

/**
 * What the symbolic links `ln -s` makes point at, as words to place from where the command runs. A
 * relative target is text the link resolves from the folder it is made in, not from the command's:
 * `cd a/b && ln -s ../private ../../docs/key` names a/private, and makes docs/key lead into private/.
 * That folder is the target-directory option's value; else the last operand's own folder, and the
 * last operand itself when it is a folder or a link to one, or ends in `/` (ln puts the link inside
 * it, unless `-n` or `-T` say otherwise: both are judged). `folderAt` says whether a path (placed
 * from the command's folder) leads to a folder now. With `ln -r` the targets are placed from the
 * command's folder, as written.
 */
export function symlinkTargets(operands: readonly PlacedWord[], targetDirectory: PlacedWord | undefined, folderAt: (path: string) => boolean): PlacedWord[] {
  const last = operands.at(-1);
  const targets = targetDirectory ? operands : operands.slice(0, -1);
  const folders: PlacedWord[] = [];
  if (targetDirectory) folders.push(targetDirectory);
  else if (last && targets.length > 0) {
    // The text up to the last `/`, of the word as written and of its value: a `~` or `~+` before it is placed as bash places it.
    const parentOf = (text: string) => text.slice(0, text.lastIndexOf('/') + 1);
    folders.push({ raw: parentOf(last.raw), value: parentOf(last.value), computed: last.computed });
    if (last.value.endsWith('/') || last.computed || folderAt(last.value)) folders.push(last);
  }
  const relative = targets.filter((target) => !target.value.startsWith('/') && !/^~/.test(target.raw));
  const slash = (text: string) => (text.endsWith('/') ? text : `${text}/`);
  return folders
    .filter((folder) => folder.value !== '' && folder.value !== '.' && folder.value !== './')
    .flatMap((folder) => relative.map((target) => ({ raw: `${slash(folder.raw)}${target.raw}`, value: `${slash(folder.value)}${target.value}`, computed: target.computed || folder.computed })));
}
