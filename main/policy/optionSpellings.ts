/**
 * The spellings of one option, so that a deny or ask of `rm -rf *` also holds `rm -fr`, `rm -r -f`,
 * `rm -Rf`, `rm --recursive --force` and `rm --rec --for`: GNU getopt_long (and git's
 * parse-options) take any unique prefix of a long option for the whole option. A prefix is counted
 * even when it would be ambiguous for the program (it then refuses to run), which only ever
 * makes a deny or ask match more.
 */

/** The short letters and long names that mean one option. */
export interface OptionSpelling {
  readonly shorts: ReadonlySet<string>;
  readonly longs: readonly string[];
}

/** Options of the commonly denied programs (and git subcommands) with their other spellings, one group each. */
const SPELLINGS: Record<string, readonly (readonly string[])[]> = {
  rm: [['r', 'R', 'recursive'], ['f', 'force'], ['d', 'dir'], ['i', 'interactive'], ['I'], ['v', 'verbose'], ['no-preserve-root'], ['one-file-system']],
  cp: [['r', 'R', 'recursive'], ['f', 'force'], ['a', 'archive'], ['n', 'no-clobber'], ['u', 'update'], ['l', 'link'], ['s', 'symbolic-link'], ['t', 'target-directory'], ['remove-destination']],
  mv: [['f', 'force'], ['n', 'no-clobber'], ['u', 'update'], ['i', 'interactive'], ['t', 'target-directory']],
  ln: [['s', 'symbolic'], ['f', 'force'], ['n', 'no-dereference'], ['t', 'target-directory']],
  chmod: [['R', 'recursive'], ['f', 'silent', 'quiet'], ['v', 'verbose'], ['c', 'changes']],
  chown: [['R', 'recursive'], ['f', 'silent', 'quiet'], ['v', 'verbose'], ['h', 'no-dereference']],
  chgrp: [['R', 'recursive'], ['f', 'silent', 'quiet'], ['v', 'verbose'], ['h', 'no-dereference']],
  shred: [['u', 'remove'], ['z', 'zero'], ['n', 'iterations'], ['f', 'force'], ['x', 'exact']],
  rsync: [['r', 'recursive'], ['a', 'archive'], ['delete'], ['remove-source-files']],
  truncate: [['s', 'size'], ['c', 'no-create']],
  sed: [['i', 'in-place'], ['e', 'expression']],
  curl: [['o', 'output'], ['O', 'remote-name'], ['T', 'upload-file'], ['d', 'data'], ['X', 'request']],
  'git push': [['f', 'force'], ['d', 'delete'], ['n', 'dry-run'], ['u', 'set-upstream'], ['all'], ['mirror'], ['tags'], ['force-with-lease'], ['no-verify']],
  'git clean': [['f', 'force'], ['n', 'dry-run'], ['d'], ['x'], ['X'], ['q', 'quiet'], ['i', 'interactive']],
  'git reset': [['hard'], ['soft'], ['mixed'], ['keep'], ['merge']],
  'git checkout': [['f', 'force'], ['b'], ['B']],
  'git branch': [['d', 'delete'], ['D'], ['f', 'force'], ['m', 'move'], ['M']],
  'git commit': [['a', 'all'], ['n', 'no-verify'], ['amend'], ['m', 'message']],
  'git rebase': [['i', 'interactive'], ['f', 'force-rebase']],
  'git stash': [['a', 'all'], ['u', 'include-untracked']],
};

/** For programs not listed: what the matcher always read (-R as -r, --recursive, --force). */
const ANY_PROGRAM: readonly (readonly string[])[] = [['r', 'R', 'recursive'], ['f', 'force']];

function groupsFor(program: string, subcommand: string | undefined): readonly (readonly string[])[] {
  return SPELLINGS[`${program} ${subcommand ?? ''}`] ?? SPELLINGS[program] ?? ANY_PROGRAM;
}

function spellingOf(group: readonly string[]): OptionSpelling {
  return { shorts: new Set(group.filter((name) => name.length === 1)), longs: group.filter((name) => name.length > 1) };
}

/** A command's options as written: short letters, long names (without `--` or `=value`), and whether some word could be any option. */
export interface WrittenOptions {
  readonly shorts: ReadonlySet<string>;
  /** The short-option clusters as written, without their `-` (`rf`, `XDELETE`). */
  readonly clusters: readonly string[];
  readonly longs: readonly string[];
  readonly anyOption: boolean;
}

/** The spelling a rule's option names (`r` from `-rf`, or `recursive` from `--recursive`), with all its others. */
export function ruleOptionSpelling(program: string, subcommand: string | undefined, option: string): OptionSpelling {
  const groups = groupsFor(program, subcommand);
  const group = option.length === 1 ? groups.find((names) => names.includes(option)) : groups.find((names) => names.some((name) => name.length > 1 && name.startsWith(option)));
  return spellingOf(group ?? [option]);
}

/** Whether a long name as written (`rec`) spells this option: it is a prefix of one of its long names. */
function longSpells(written: string, spelling: OptionSpelling): boolean {
  return written !== '' && spelling.longs.some((long) => long.startsWith(written));
}

/** Whether a command's options include this one, in any spelling. */
export function optionGiven(spelling: OptionSpelling, given: WrittenOptions): boolean {
  if (given.anyOption) return true;
  for (const letter of given.shorts) if (spelling.shorts.has(letter)) return true;
  return given.longs.some((long) => longSpells(long, spelling));
}

/** Whether every option a command gives is one of these (for a rule without `*`: no other options). */
export function onlyOptions(spellings: readonly OptionSpelling[], given: WrittenOptions): boolean {
  if (given.anyOption) return true;
  const known = (letter: string) => spellings.some((spelling) => spelling.shorts.has(letter));
  // Any letter after the first may start an option's glued value (-XPUT): only the first must be the rule's.
  if (!given.clusters.every((cluster) => known(cluster[0]!))) return false;
  return given.longs.every((long) => spellings.some((spelling) => longSpells(long, spelling)));
}
