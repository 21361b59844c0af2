import { closeSync, constants, fstatSync, lstatSync, openSync, type Dirent, type Stats } from 'node:fs';
import { GateError } from '../../shared/errors';

/** What a directory entry is, special files named by their kind. Symlinks are never followed. */
export type FileKind = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'character-device' | 'block-device' | 'unknown';

/** The kinds of special file: the file tools list them, never open them. */
export type SpecialKind = Exclude<FileKind, 'file' | 'directory' | 'symlink'>;

/** How a kind reads in an error message. */
export const KIND_NAMES: Record<FileKind, string> = {
  file: 'a regular file',
  directory: 'a directory',
  symlink: 'a symlink',
  fifo: 'a FIFO (named pipe)',
  socket: 'a socket',
  'character-device': 'a character device',
  'block-device': 'a block device',
  unknown: 'a special file of an unknown kind',
};

/**
 * The flags every workspace file is opened with for reading: O_NOFOLLOW (a final symlink is refused,
 * not followed), O_NONBLOCK (a FIFO swapped in after the check does not hold the open until a writer
 * comes) and O_NOCTTY (a terminal device never becomes the process's controlling terminal).
 */
const SAFE_READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0) | (constants.O_NOCTTY ?? 0);

/** What Stats (from lstat or fstat) and Dirent share to tell a kind. */
type KindTests = Pick<Dirent, 'isFile' | 'isDirectory' | 'isSymbolicLink' | 'isFIFO' | 'isSocket' | 'isCharacterDevice' | 'isBlockDevice'>;

/** The kind of what a Stats (from lstat or fstat) or a Dirent describes. */
export function fileKind(entry: KindTests): FileKind {
  if (entry.isSymbolicLink()) return 'symlink';
  if (entry.isDirectory()) return 'directory';
  if (entry.isFile()) return 'file';
  if (entry.isFIFO()) return 'fifo';
  if (entry.isSocket()) return 'socket';
  if (entry.isCharacterDevice()) return 'character-device';
  if (entry.isBlockDevice()) return 'block-device';
  return 'unknown';
}

/** The special kind of an entry, or undefined for files, directories and symlinks. */
export function specialKind(entry: KindTests): SpecialKind | undefined {
  const kind = fileKind(entry);
  return kind === 'file' || kind === 'directory' || kind === 'symlink' ? undefined : kind;
}

/** The error for a path that is not a regular file, naming what it is instead; `why` replaces the default reason. */
export function notRegularFile(requested: string, kind: FileKind, why?: string): GateError {
  const reason =
    why ??
    (kind === 'directory'
      ? 'file tools read and write regular files only'
      : 'file tools never open special files (a FIFO or a device could hold the call forever)');
  return new GateError('EVALIDATION', `${requested} is ${KIND_NAMES[kind]}, not a regular file; ${reason}`, { path: requested, kind });
}

/** A regular file opened for reading, with what fstat said of it. The caller closes fd. */
export interface OpenedRegularFile {
  readonly fd: number;
  readonly stats: Stats;
}

/**
 * Opens the workspace file at `absolute` (already confined) for reading, refusing anything but a
 * regular file twice: by lstat before the open (a FIFO, socket or device is never opened at all),
 * and by fstat of the descriptor (something swapped in between is closed at once, unread).
 * `directoryHint` says where to go instead when the path is a directory.
 */
export function openRegularFile(absolute: string, requested: string, directoryHint?: string): OpenedRegularFile {
  let before: Stats;
  try {
    before = lstatSync(absolute);
  } catch (error) {
    throw openError(error, requested);
  }
  const kind = fileKind(before);
  if (kind === 'symlink') throw symlinkRefused(requested);
  if (kind !== 'file') throw notRegularFile(requested, kind, kind === 'directory' ? directoryHint : undefined);
  let fd: number;
  try {
    fd = openSync(absolute, SAFE_READ_FLAGS);
  } catch (error) {
    throw openError(error, requested);
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) throw notRegularFile(requested, fileKind(stats));
    return { fd, stats };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

/** Refuses a path whose entry exists and is neither a regular file nor a symlink (the rename of a write would replace it unseen). */
export function refuseSpecialTarget(absolute: string, requested: string): void {
  let stats: Stats;
  try {
    stats = lstatSync(absolute);
  } catch {
    return;
  }
  const kind = specialKind(stats);
  if (kind !== undefined) throw notRegularFile(requested, kind);
}

function symlinkRefused(requested: string): GateError {
  return new GateError('EPERMISSION', `${JSON.stringify(requested)} is a symlink; file tools never follow one`, { path: requested });
}

function openError(error: unknown, requested: string): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ELOOP') return symlinkRefused(requested);
  if (code === 'ENOENT' || code === 'ENOTDIR') return new GateError('EVALIDATION', `${requested} does not exist in the workspace`);
  // open() of a unix socket fails with ENXIO: one swapped in after the lstat.
  if (code === 'ENXIO') return notRegularFile(requested, 'socket');
  return error;
}
