/**
 * What common programs do with their arguments: which operands are files they read, which files
 * they write, which options take a value and what that value names. A program not listed here is
 * judged fail-closed by commandPaths: every argument that could be a path counts as read and written.
 */

/** What a program's plain operands are. */
export type OperandRole =
  /** Files or folders it reads. */
  | 'read'
  /** Files or folders it writes, creates or removes. */
  | 'write'
  /** Both (it changes them in place). */
  | 'both'
  /** Sources read, the last operand written (cp, ln); with a target-folder option every operand is a source. */
  | 'copy'
  /** Sources read and removed, the last operand written (mv). */
  | 'move'
  /** No files at all (echo, printf): its words are text. */
  | 'none';

/**
 * What the value of an option names: a file read, written or both, nothing, a file whose contents
 * name the files the program works on (`tar -T LIST`, `wc --files0-from=LIST`: those files are only
 * known when it runs), a name then a file read (`jq --rawfile NAME FILE`), or a folder it works in,
 * reading and writing below it (`tar -C DIR`).
 */
export type ValueRole = 'read' | 'write' | 'both' | 'none' | 'list' | 'named-read' | 'folder';

/** How one program uses its arguments. */
export interface ProgramSpec {
  readonly operands: OperandRole;
  /** Leading operands that are not files (grep's pattern, sed's script, chmod's mode). */
  readonly skip?: number;
  /** Options after which nothing is skipped (the pattern or script came with them: grep -e, sed -f). */
  readonly skipUnless?: readonly string[];
  /** Options that take a value (the next word, or glued), by name, and what the value names. */
  readonly values?: Readonly<Record<string, ValueRole>>;
  /** Options that make its operands lists of the files it reads (md5sum -c): those are only known when it runs. */
  readonly lists?: readonly string[];
  /** Options that make it write its read operands too (sed -i, find -delete). */
  readonly writes?: readonly string[];
  /** Whether it reaches below the folders it is given: always, or with one of these options. */
  readonly recursive?: true | readonly string[];
  /** Whether, given no file operand, it reads its working folder (ls, find, grep -r). */
  readonly readsCwd?: boolean;
  /** Whether it follows the symbolic links it meets below the folders it reaches: always, or with one of these options. */
  readonly follows?: true | readonly string[];
  /**
   * Options that make its sources the text of symbolic links, which points from the folder each link
   * is made in (`make`), and those that make that text relative to the command's own folder instead (`fromHere`).
   */
  readonly symlinks?: { readonly make: readonly string[]; readonly fromHere: readonly string[] };
}

const READ: ProgramSpec = { operands: 'read' };
const WRITE: ProgramSpec = { operands: 'write' };
const NONE: ProgramSpec = { operands: 'none' };
const LINES = { n: 'none', c: 'none', lines: 'none', bytes: 'none' } as const;
const RECURSIVE = ['r', 'R', 'recursive'];
const GREP: ProgramSpec = {
  operands: 'read',
  skip: 1,
  skipUnless: ['e', 'f', 'regexp', 'file'],
  values: { e: 'none', regexp: 'none', f: 'read', file: 'read', m: 'none', 'max-count': 'none', A: 'none', B: 'none', C: 'none', include: 'none', exclude: 'none', 'exclude-dir': 'none', label: 'none' },
  recursive: ['r', 'R', 'recursive', 'dereference-recursive'],
  follows: ['R', 'dereference-recursive'],
};
const COPY: ProgramSpec = {
  operands: 'copy',
  values: { t: 'write', 'target-directory': 'write', S: 'none', suffix: 'none', m: 'none', mode: 'none', o: 'none', g: 'none', owner: 'none', group: 'none' },
  recursive: ['r', 'R', 'a', 'recursive', 'archive'],
  follows: ['L', 'dereference'],
};
const OWNER: ProgramSpec = { operands: 'write', skip: 1, skipUnless: ['reference'], values: { reference: 'read' }, recursive: ['R', 'recursive'] };
const ARCHIVE: ProgramSpec = { operands: 'both', values: { f: 'both', C: 'folder', directory: 'folder' }, recursive: true };
const CHECKSUM: ProgramSpec = { operands: 'read', lists: ['c', 'check'] };
const FILES0_FROM = { 'files0-from': 'list' } as const;

/** The programs whose arguments are read by their roles, by base name. */
export const PROGRAM_SPECS: Readonly<Record<string, ProgramSpec>> = {
  cat: READ, tac: READ, nl: READ, less: READ, more: READ, stat: READ, readlink: READ, realpath: READ,
  wc: { operands: 'read', values: FILES0_FROM },
  file: { operands: 'read', values: { f: 'list', 'files-from': 'list', m: 'read', 'magic-file': 'read' } },
  md5sum: CHECKSUM, sha1sum: CHECKSUM, sha224sum: CHECKSUM, sha256sum: CHECKSUM, sha384sum: CHECKSUM, sha512sum: CHECKSUM, b2sum: CHECKSUM, cksum: CHECKSUM, sum: READ,
  base64: READ, base32: READ, basenc: READ, xxd: READ, od: READ, hexdump: READ, strings: READ, fold: READ, fmt: READ, expand: READ, unexpand: READ,
  rev: READ, column: READ, comm: READ, cmp: READ, source: READ, '.': READ, vi: { operands: 'both' }, vim: { operands: 'both' }, nano: { operands: 'both' },
  head: { operands: 'read', values: LINES },
  tail: { operands: 'read', values: LINES },
  cut: { operands: 'read', values: { d: 'none', f: 'none', c: 'none', b: 'none', delimiter: 'none', fields: 'none', characters: 'none', bytes: 'none' } },
  paste: { operands: 'read', values: { d: 'none', delimiters: 'none' } },
  join: { operands: 'read', values: { t: 'none', j: 'none', '1': 'none', '2': 'none', o: 'none', e: 'none' } },
  iconv: { operands: 'read', values: { f: 'none', t: 'none', o: 'write', output: 'write' } },
  sort: { operands: 'read', values: { o: 'write', output: 'write', k: 'none', key: 'none', t: 'none', S: 'none', T: 'none', ...FILES0_FROM } },
  uniq: { operands: 'copy', values: { f: 'none', s: 'none', w: 'none' } },
  grep: GREP, egrep: GREP, fgrep: GREP, zgrep: GREP,
  rg: { ...GREP, recursive: true, readsCwd: true, follows: ['L', 'follow'], values: { ...GREP.values, g: 'none', glob: 'none', t: 'none', type: 'none' } },
  ag: { operands: 'read', skip: 1, recursive: true, readsCwd: true, follows: ['f', 'follow'] },
  // diff -r reads both trees; a folder against a file reads the file's name in the folder; --from-file and --to-file name one side.
  // GNU diff -r follows the links it meets below the folders it compares.
  diff: { operands: 'read', recursive: ['r', 'recursive'], follows: true, values: { 'from-file': 'read', 'to-file': 'read', X: 'read', 'exclude-from': 'read', x: 'none', exclude: 'none', I: 'none', 'ignore-matching-lines': 'none', L: 'none', label: 'none', S: 'none', 'starting-file': 'none', F: 'none', 'show-function-line': 'none', C: 'none', U: 'none', W: 'none', 'width': 'none', 'tabsize': 'none', 'color': 'none', 'palette': 'none' } },
  // ctags -R given no folder reads the working folder; -L names a list of the files it reads.
  ctags: { operands: 'read', recursive: ['R', 'recurse'], values: { f: 'write', o: 'write', L: 'list', options: 'read', 'exclude-exception': 'none', exclude: 'none', languages: 'none', 'language-force': 'none', langdef: 'none', 'langmap': 'none', kinds: 'none', fields: 'none', extras: 'none' } },
  awk: { operands: 'read', skip: 1, skipUnless: ['f', 'file'], values: { f: 'read', file: 'read', v: 'none', F: 'none' } },
  gawk: { operands: 'read', skip: 1, skipUnless: ['f', 'file'], values: { f: 'read', file: 'read', v: 'none', F: 'none' } },
  sed: { operands: 'read', skip: 1, skipUnless: ['e', 'f', 'expression', 'file'], values: { e: 'none', expression: 'none', f: 'read', file: 'read', l: 'none' }, writes: ['i', 'in-place'] },
  jq: { operands: 'read', skip: 1, skipUnless: ['f', 'from-file'], values: { f: 'read', 'from-file': 'read', slurpfile: 'named-read', rawfile: 'named-read', indent: 'none', L: 'read' } },
  ls: { operands: 'read', recursive: ['R', 'recursive'], readsCwd: true, follows: ['L', 'dereference'] },
  du: { operands: 'read', recursive: true, readsCwd: true, follows: ['L', 'dereference'], values: { d: 'none', 'max-depth': 'none', B: 'none', X: 'read', 'exclude-from': 'read', ...FILES0_FROM } },
  tree: { operands: 'read', recursive: true, readsCwd: true, follows: ['l'], values: { L: 'none', I: 'none', P: 'none', o: 'write' } },
  test: NONE, '[': NONE, '[[': NONE,
  rm: { operands: 'write', recursive: ['r', 'R', 'recursive'] }, rmdir: WRITE, unlink: WRITE, shred: WRITE, touch: { operands: 'write', values: { r: 'read', reference: 'read', d: 'none', t: 'none' } }, mkdir: { operands: 'write', values: { m: 'none', mode: 'none' } },
  mkfifo: WRITE, mknod: WRITE, truncate: { operands: 'write', values: { s: 'none', size: 'none', r: 'read', reference: 'read' } },
  tee: WRITE,
  chmod: { ...OWNER }, chown: OWNER, chgrp: OWNER,
  cp: COPY, install: COPY, ln: {
    operands: 'copy',
    values: { t: 'write', 'target-directory': 'write', S: 'none', suffix: 'none' },
    symlinks: { make: ['s', 'symbolic'], fromHere: ['r', 'relative'] },
  },
  mv: { ...COPY, operands: 'move' },
  rsync: { ...COPY, recursive: true, follows: ['L', 'copy-links', 'K', 'keep-dirlinks', 'copy-unsafe-links'], values: { ...COPY.values, 'files-from': 'list', 'exclude-from': 'read', 'include-from': 'read' } },
  scp: { ...COPY, recursive: ['r'], follows: true },
  tar: { ...ARCHIVE, follows: ['h', 'dereference'], values: { ...ARCHIVE.values, T: 'list', 'files-from': 'list', X: 'read', 'exclude-from': 'read' } },
  // zip stores what a link leads to unless told -y.
  zip: { ...ARCHIVE, follows: true }, unzip: ARCHIVE, gzip: ARCHIVE, gunzip: ARCHIVE, bzip2: ARCHIVE, xz: ARCHIVE, zstd: ARCHIVE, '7z': ARCHIVE,
  echo: NONE, printf: NONE, true: NONE, false: NONE, pwd: NONE, exit: NONE, return: NONE, sleep: NONE, date: NONE, whoami: NONE, id: NONE,
  uname: NONE, hostname: NONE, seq: NONE, yes: NONE, expr: NONE, let: NONE, export: NONE, unset: NONE, set: NONE, shift: NONE, local: NONE,
  declare: NONE, typeset: NONE, readonly: NONE, kill: NONE, wait: NONE, jobs: NONE, read: NONE, type: NONE, which: NONE, hash: NONE, basename: NONE, dirname: NONE,
};
