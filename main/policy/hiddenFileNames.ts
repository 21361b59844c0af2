/** A word of the line: its value as bash passes it. */
interface Word {
  readonly value: string;
}

/**
 * Programs that name files in ways no word of the line shows, read fail-closed: where they may, the
 * files they touch are only known when the line runs, so a deny or ask on paths makes the line ask.
 * - curl's URL globbing (`file:///ws/secre[t-t]/key`, `{a,b}`, unless -g), a config (-K, which may
 *   name any file, `-` from its input), a quoted form file name (`-F 'f=@"key"'`), and a write-out
 *   that writes a file (`-w '%output{…}'`);
 * - wget's `-e`, a wgetrc command (`post_file=`, `input=`, `output_document=`);
 * - sed's -i backup suffix holding a / (`-i'secret/*'` writes the backup into that folder);
 * - zip -@, which takes the files from its input;
 * - a jq program that imports or includes a module (`import "key" as $k`);
 * - the programs that take the files from their input or a list (fromInput).
 */
export function hiddenFileNames(program: string, args: readonly Word[]): string | undefined {
  const values = args.map((arg) => arg.value);
  const options = (pattern: RegExp) => anyMatches(values, pattern);
  if (program === 'curl') {
    if (!options(/^(-[a-zA-Z]*g|--globoff)$/) && values.some((value) => !value.startsWith('-') && (/\[[^\]]*\]/.test(value) || /\{[^}]*\}/.test(value)))) {
      return 'curl expands the [ ] and { } in its URLs and file names when it runs';
    }
    if (options(/^(-[a-zA-Z]*K|--con(f(i(g)?)?)?(=|$))/)) return 'a curl config names files only known when the line runs';
    if (values.some((value, at) => (/^(-[a-zA-Z]*F|--form)$/.test(values[at - 1] ?? '') || /^(-F|--form=)/.test(value)) && value.includes('"'))) return 'curl reads a quoted form file name when it runs';
    if (values.some((value) => value.includes('%output{'))) return 'curl -w %output{} writes a file named when it runs';
  }
  if (program === 'wget' && options(/^(-[a-zA-Z]*e|--e(x(e(c(u(t(e)?)?)?)?)?)?)(=|$)|^-e./)) return 'a wget -e command may name any file';
  if (program === 'sed' && values.some((value) => /^(-[a-zA-Z]*i|--in-place=)\S*\//.test(value))) return 'sed -i writes its backup into the folder its suffix names';
  if (program === 'zip' && options(/^-[a-zA-Z]*@/)) return 'zip -@ takes the files from its input';
  if (program === 'jq' && values.some((value) => /\b(import|include)\s*"/.test(value))) return 'a jq program that imports a module reads files named when it runs';
  return fromInput(program, values);
}

/**
 * Programs that take the names of the files they read, copy or store from their input or a list
 * (`echo secret/key | cpio -o`, `git hash-object --stdin-paths`, `git cat-file --batch`), or find a
 * folder from their destination (`rsync --link-dest=..`, relative to where it copies).
 */
function fromInput(program: string, values: readonly string[]): string | undefined {
  const options = (pattern: RegExp) => anyMatches(values, pattern);
  if (program === 'cpio' && options(/^(-[a-zA-Z]*[op]|--create$|--pass-through$)/)) return 'cpio -o and -p take the files from their input';
  if (program === 'pax' && options(/^-[a-zA-Z]*w/)) return 'pax -w takes the files from its input when the line names none';
  if (program === 'rsync' && options(/^--(link|copy|compare)-dest(=|$)/)) return 'rsync finds its --link-dest, --copy-dest or --compare-dest folder from its destination';
  if (program === 'git' && options(/^--(stdin-paths|pathspec-from-file|stdin|index-info|batch)(=|$|-)/)) return 'git takes the files or objects from its input or a list';
  if (program === 'find' && values.includes('-files0-from')) return 'find -files0-from takes its starting points from a list';
  if ((program === 'xz' || program === 'zstd') && options(/^--(files0?|filelist)(=|$)/)) return `${program} takes the files from a list`;
  return undefined;
}

/**
 * Whether the program writes files named inside what it reads, not on the line: an archive it
 * extracts (`tar -xf t.tar` may hold `secret/x`, or rename into it with --transform; unzip, 7z x,
 * cpio -i, ar x) or a patch it applies (`patch -p1 < x.diff`). Listing, testing and printing to
 * standard output write nothing.
 */
export function writtenByContent(program: string, values: readonly string[]): string | undefined {
  const has = (pattern: RegExp) => anyMatches(values, pattern);
  if (program === 'tar' || program === 'bsdtar') {
    const oldStyle = values[0] !== undefined && !values[0].startsWith('-') && /^[a-zA-Z]+$/.test(values[0]) && values[0].includes('x');
    if ((oldStyle || has(/^-[a-zA-Z]*x|^--(ext|get)/)) && !has(/^-[a-zA-Z]*O|^--to-stdout$/)) return `${program} extracts files under the names its archive holds`;
  }
  if (program === 'unzip' && !has(/^-[a-zA-Z]*[lptvZz]/)) return 'unzip extracts files under the names its archive holds';
  if ((program === '7z' || program === '7za' || program === '7zr') && (values[0] === 'x' || values[0] === 'e')) return `${program} extracts files under the names its archive holds`;
  if (program === 'cpio' && has(/^(-[a-zA-Z]*i|--extract)/)) return 'cpio extracts files under the names its archive holds';
  if (program === 'ar' && /^-?[a-zA-Z]*x/.test(values[0] ?? '')) return 'ar extracts files under the names its archive holds';
  if (program === 'patch' && !has(/^--dry-run$/)) return 'patch writes the files its patch names';
  return undefined;
}

function anyMatches(values: readonly string[], pattern: RegExp): boolean {
  return values.some((value) => pattern.test(value));
}
