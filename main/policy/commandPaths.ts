import { statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import type { SubCommand } from '../../shared/commandPreview';
import { GateError } from '../../shared/errors';
import { parseCommand } from '../tools/shell/parseCommand';
import { baseName, programWords } from '../tools/shell/programWords';
import { expandBraces, isAssignment, wordValue } from '../tools/shell/shellWords';
import { isInside, realpathOfLongestExisting } from '../tools/workspacePath';
import { expandTilde } from './homeFolders';
import { kernelPath } from './kernelPath';
import { madeLater, mayMakeLinks, runsBeside, symlinkTargets } from './linkMakers';
import type { PathAccess } from './pathRule';
import { BOTH, type CommandPlace, type Folders, type PathUse } from './pathUse';
import { followedLinks } from './followedLinks';
import { gitStoreUses } from './gitStoreUses';
import { handedUses } from './handedUses';
import { embeddedPaths, gluedValues } from './argumentValues';
import { hiddenFileNames, writtenByContent } from './hiddenFileNames';
import { expandPathname, hasGlob } from './pathnameExpansion';
import { PROGRAM_SPECS, type ProgramSpec, type ValueRole } from './programPaths';
import { sedEffects, sedScripts } from './sedScript';
import { redirectedPaths } from './shellRule';

/**
 * Which files and folders a shell line reads and writes, worked out from the tree-sitter parse:
 * redirections (`<`, `0<`, `>`, `>>`, `&>`, `<>`), and the arguments of each program by what the
 * program does with them (programPaths.ts: `cat` reads, `cp` reads its sources and writes the last,
 * `rm` writes). A program it does not know has every argument count as read and written, below
 * folders too: judged fail-closed for deny and ask rules, never used to allow anything.
 *
 * Each word is placed as bash would place it before the program runs: braces, `~` and `~user`
 * (the passwd database), globs against the folder (bounded), relative paths in every folder a `cd`
 * on the line may have moved to, and `..` both as text and as the kernel follows it. A word whose
 * value bash computes when it runs (`$x`, `$(…)`) is reported as unknown, not guessed.
 */

export type { CommandPlace, PathAccess, PathUse };

/** How strictly arguments are read: by what each program does, or every word as a possible path. */
interface Reading {
  /** Every word of every program counts as a path read and written, the program's own name too when it has a `/`. */
  readonly everyWord: boolean;
}

interface Word {
  /** The word as written (quotes kept). */
  readonly raw: string;
  /** Its value after quote removal. */
  readonly value: string;
  readonly computed: boolean;
}

function wordsOf(written: string): Word[] {
  // Brace expansion comes before the others, on the unquoted braces of the word: `"secre"{t,x}` is
  // secret and secrex, as bash makes it (a brace in quotes or an expansion stays text).
  return expandBraces(written).map((raw) => ({ raw, ...wordValue(raw) }));
}

function uniq(paths: readonly string[]): string[] {
  return [...new Set(paths)];
}

/** An absolute path both as text resolves it and as the kernel follows a `..` through a symlink. */
function readings(path: string): string[] {
  const lexical = resolve(path);
  return path.split(sep).includes('..') ? uniq([lexical, kernelPath(path)]) : [lexical];
}

/** The absolute paths a word names, or why it cannot be placed. */
function locate(word: Word, folders: Folders, place: CommandPlace): { paths: string[]; unknown?: string } {
  if (word.computed && /[$`]/.test(word.value)) return { paths: [], unknown: `${word.raw} is only known when the line runs` };
  let text = word.value;
  let unknown: string | undefined;
  // Only an unquoted tilde prefix is expanded: `'~'/x` and `~"root"` stay as they are.
  if (/^~[^/'"\\]*(\/|$)/.test(word.raw)) {
    const expanded = expandTilde(text, { home: place.home, ...(folders.cwds.length === 1 ? { cwd: folders.cwds[0]! } : {}), ...(place.passwdFile ? { passwdFile: place.passwdFile } : {}) });
    if (expanded.kind === 'path') text = expanded.path;
    else if (expanded.kind === 'unknown') unknown = expanded.why;
  }
  if (!isAbsolute(text) && folders.unknown) return { paths: [], unknown: folders.unknown };
  const bases = isAbsolute(text) ? ['/'] : folders.cwds;
  const paths: string[] = [];
  for (const base of bases) {
    const literal = resolve(base, text);
    paths.push(...readings(isAbsolute(text) ? text : `${base}${sep}${text}`), literal);
    if (word.computed && hasGlob(text)) {
      const matched = expandPathname(text, base);
      if ('unbounded' in matched) return { paths, unknown: `the glob ${word.raw}: ${matched.unbounded}` };
      paths.push(...matched.paths);
    }
  }
  return { paths: uniq(paths), ...(unknown ? { unknown } : {}) };
}

function use(accesses: readonly PathAccess[], word: Word, folders: Folders, place: CommandPlace, below: boolean): PathUse {
  const located = locate(word, folders, place);
  return { accesses, written: word.raw, paths: located.paths, below, ...(located.unknown ? { unknown: located.unknown } : {}) };
}

function valueAccesses(role: ValueRole): readonly PathAccess[] {
  return role === 'both' || role === 'folder' ? BOTH : role === 'read' || role === 'list' || role === 'named-read' ? ['read'] : role === 'write' ? ['write'] : [];
}

/** The files a list names (`tar -T LIST`): read, or read and written for a program that writes its operands too, and only known when it runs. */
function listedFiles(spec: ProgramSpec, list: Word): PathUse {
  return { accesses: spec.operands === 'read' ? ['read'] : BOTH, written: list.raw, paths: [], below: true, unknown: `the files named in ${list.raw} are only known when the line runs` };
}

/**
 * The role of a long option given by name: the option itself, or the options it is a prefix of
 * (GNU getopt_long takes any unique prefix: `--files0` is --files0-from). When several begin with
 * it, one that names a file counts, which only makes a rule match more.
 */
function longRole(spec: ProgramSpec, name: string): ValueRole | undefined {
  const values = spec.values ?? {};
  if (Object.hasOwn(values, name)) return values[name];
  const roles = Object.keys(values).filter((option) => option.length > 1 && option.startsWith(name)).map((option) => values[option]!);
  return roles.find((role) => role !== 'none') ?? roles[0];
}

/** Uses of a program listed in programPaths.ts, by the roles of its arguments. */
function knownProgramUses(spec: ProgramSpec, args: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  const uses: PathUse[] = [];
  const operands: Word[] = [];
  const flags = new Set<string>();
  /** The long options as written (perhaps shortened). */
  const longs: string[] = [];
  /** The target-directory option's value (ln, cp, mv, install). */
  let targetDirectory: Word | undefined;
  const valued = (role: ValueRole | undefined, word: Word | undefined, option: string) => {
    if (option === 't' || (option.length > 1 && 'target-directory'.startsWith(option))) targetDirectory = word;
    if (!word || !role || role === 'none') return;
    uses.push(use(valueAccesses(role), word, folders, place, role === 'folder'));
    if (role === 'list') uses.push(listedFiles(spec, word));
  };
  let ended = false;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    if (!ended && arg.value === '--') ended = true;
    else if (ended || !arg.value.startsWith('-') || arg.value === '-') operands.push(arg);
    else if (arg.value.startsWith('--')) {
      const [name = '', ...rest] = arg.value.slice(2).split('=');
      flags.add(name);
      longs.push(name);
      const role = longRole(spec, name);
      const value = rest.join('=');
      // `--rawfile NAME FILE`: the name, then the file (which is the next word even after `--rawfile=NAME`).
      if (role === 'named-read') valued(role, args[rest.length > 0 ? ++at : (at += 2)], name);
      // An option this table does not know, given a path-like value, is read as reading it.
      else if (rest.length > 0) valued(role ?? (/[/~]/.test(value) ? 'read' : 'none'), { raw: value, value, computed: arg.computed }, name);
      else if (role) valued(role, args[++at], name);
    } else {
      const letters = arg.value.slice(1);
      let taken = false;
      for (let index = 0; index < letters.length && !taken; index++) {
        const letter = letters[index]!;
        flags.add(letter);
        const role = spec.values?.[letter];
        if (role === undefined) continue;
        const glued = letters.slice(index + 1);
        valued(role, glued ? { raw: glued, value: glued, computed: arg.computed } : args[++at], letter);
        taken = true;
      }
      // An option this table does not know may take the rest of the word as its value (`patch -osecret/x`,
      // `-o.env`): counted where that rest could be a path of its own (a letters-only rest is a cluster of flags).
      if (!taken && /[/.~]/.test(letters.slice(1))) for (const rest of gluedValues(arg.value)) uses.push(use(BOTH, { raw: rest, value: rest, computed: arg.computed }, folders, place, false));
    }
  }
  // A long option may be written as any prefix of its name (`--dereference-rec`), as getopt_long takes it.
  const has = (names: readonly string[] | undefined) => (names ?? []).some((name) => flags.has(name) || (name.length > 1 && longs.some((long) => name.startsWith(long))));
  const files = spec.skip && !has(spec.skipUnless) ? operands.slice(spec.skip) : operands;
  const alwaysRecursive = spec.recursive === true;
  const below = alwaysRecursive || has(typeof spec.recursive === 'object' ? spec.recursive : undefined);
  const read: readonly PathAccess[] = has(spec.writes) ? BOTH : ['read'];
  const targetFolder = has(['t', 'target-directory']);
  files.forEach((file, index) => {
    const last = index === files.length - 1 && files.length > 1 && !targetFolder;
    const accesses: readonly PathAccess[] =
      spec.operands === 'read' ? read
      : spec.operands === 'write' ? ['write']
      : spec.operands === 'both' ? BOTH
      : spec.operands === 'copy' ? (last ? ['write'] : ['read'])
      : spec.operands === 'move' ? (last ? ['write'] : BOTH)
      : [];
    if (accesses.length > 0) uses.push(use(accesses, file, folders, place, below));
    if (has(spec.lists)) uses.push(listedFiles(spec, file));
  });
  // A symbolic link's target is also read from the folder the link is made in (ln -s, unless -r).
  if (spec.symlinks && has(spec.symlinks.make) && !has(spec.symlinks.fromHere)) {
    const folderAt = (path: string) => folders.cwds.some((cwd) => statSync(resolve(cwd, path), { throwIfNoEntry: false })?.isDirectory() === true);
    for (const target of symlinkTargets(files, targetDirectory, folderAt)) uses.push(use(['read'], target, folders, place, false));
  }
  if (files.length === 0 && spec.operands === 'read' && (spec.readsCwd || (below && !alwaysRecursive))) {
    uses.push(use(read, { raw: '.', value: '.', computed: false }, folders, place, below));
  }
  const follows = spec.follows === true || has(typeof spec.follows === 'object' ? spec.follows : undefined);
  return below && follows ? [...uses, ...linksFollowed(uses)] : uses;
}

/** What a program that follows links reaches through the links below the folders it works on recursively: their targets, whole. */
function linksFollowed(uses: readonly PathUse[]): PathUse[] {
  return uses
    .filter((found) => found.below && found.paths.length > 0)
    .flatMap((found) => {
      const links = followedLinks(found.paths);
      if (links.targets.length === 0 && !links.unknown) return [];
      return [{ accesses: found.accesses, written: `${found.written} (the links below it)`, paths: links.targets, below: true, ...(links.unknown ? { unknown: links.unknown } : {}) }];
    });
}

/** Uses of a program nobody listed: every argument, and every option's value, may be a file it reads and writes below. */
function unknownProgramUses(args: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  const uses: PathUse[] = [];
  const maybePath = (word: Word) => {
    uses.push(use(BOTH, word, folders, place, true));
    for (const embedded of embeddedPaths(word.value)) uses.push(use(BOTH, { raw: embedded, value: embedded, computed: word.computed }, folders, place, true));
  };
  let ended = false;
  for (const arg of args) {
    if (!ended && arg.value === '--') ended = true;
    else if (ended || !arg.value.startsWith('-') || arg.value === '-') {
      if (arg.value !== '-') maybePath(arg);
    } else if (arg.value.startsWith('--')) {
      const glued = arg.value.split('=').slice(1).join('=');
      if (glued !== '') maybePath({ raw: glued, value: glued, computed: arg.computed });
    } else {
      for (const glued of gluedValues(arg.value)) maybePath({ raw: glued, value: glued, computed: arg.computed });
    }
  }
  return uses;
}

/** The uses of one sub-command's arguments (not its redirections). */
function argumentUses(command: SubCommand, runs: readonly string[], folders: Folders, place: CommandPlace, reading: Reading): PathUse[] {
  const prefixCount = command.argv.findIndex((word) => !isAssignment(word));
  const written = prefixCount < 0 ? [] : command.argv.slice(prefixCount);
  // A process substitution's word is a pipe (/dev/fd/…), not a file; its commands are judged on their own.
  const words = written.filter((word) => !/^[<>]\(/.test(word)).flatMap(wordsOf);
  const uses: PathUse[] = [];
  if (reading.everyWord) {
    if (command.substitutions.length > 0) uses.push({ accesses: BOTH, written: command.text, paths: [], below: true, unknown: `${command.substitutions[0]} gives words only known when the line runs` });
    const prefixes = prefixCount < 0 ? command.argv : command.argv.slice(0, prefixCount);
    for (const prefix of prefixes) {
      const value = prefix.slice(prefix.indexOf('=') + 1);
      if (/^[~/.]|[$`]/.test(value)) uses.push(use(BOTH, wordsOf(value)[0] ?? { raw: value, value, computed: false }, folders, place, true));
    }
    if (command.runsCode.length > 0) uses.push({ accesses: BOTH, written: command.text, paths: [], below: true, unknown: `it runs code the line does not show (${command.runsCode[0]!.why})` });
    if (words[0] && (words[0].value.includes('/') || words[0].computed)) uses.push(use(BOTH, words[0], folders, place, false));
    return [...uses, ...unknownProgramUses(words.slice(1), folders, place)];
  }
  const tail = words.slice(words.length - runs.length);
  const aligned = runs.length > 0 && tail.length === runs.length && tail.every((word, index) => word.value === runs[index]);
  if (!aligned || tail[0]!.computed) return unknownProgramUses(words.slice(1), folders, place);
  return [...wrapperUses(words.slice(0, words.length - runs.length), folders, place), ...programUses(command, tail, folders, place)];
}

/** The uses of the program that runs, its words as bash passes them. */
function programUses(command: SubCommand, tail: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  const program = baseName(tail[0]!.value);
  const hidden = hiddenFileNames(program, tail.slice(1));
  const written = writtenByContent(program, tail.slice(1).map((word) => word.value));
  return [
    ...namedUses(command, tail, folders, place),
    ...(hidden ? [{ accesses: BOTH, written: command.text, paths: [], below: true, unknown: hidden }] : []),
    ...(written ? [{ accesses: ['write'] as const, written: command.text, paths: [], below: true, unknown: written }] : []),
  ];
}

/** The files the program's own words name. */
function namedUses(command: SubCommand, tail: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  const program = baseName(tail[0]!.value);
  if (program === 'xargs') return [{ accesses: BOTH, written: command.text, paths: [], below: true, unknown: 'xargs takes the files it works on from its input' }];
  const spec = PROGRAM_SPECS[program];
  if (program === 'find') return findUses(tail.slice(1), folders, place);
  if (program === 'dd') return ddUses(tail.slice(1), folders, place);
  if (program === 'git') return [...unknownProgramUses(tail.slice(1), folders, place), ...gitStoreUses(command.text, tail.map(gitWord), folders, place.home)];
  if (program === 'sed' && spec) return [...knownProgramUses(spec, tail.slice(1), folders, place), ...sedScriptUses(tail.slice(1), folders, place)];
  return spec ? knownProgramUses(spec, tail.slice(1), folders, place) : unknownProgramUses(tail.slice(1), folders, place);
}

/**
 * Files the wrappers' own options name (programWords): the file `time -o` writes, and the folder
 * `env -C` or `sudo -D` runs the program in, read and written below (a change of folder the
 * program's own relative paths are not placed in).
 */
const WRAPPER_PATH_OPTIONS: Readonly<Record<string, Readonly<Record<string, 'write' | 'folder'>>>> = {
  time: { o: 'write', output: 'write' },
  env: { C: 'folder', chdir: 'folder' },
  sudo: { D: 'folder', chdir: 'folder' },
};

function wrapperUses(words: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  const uses: PathUse[] = [];
  let options: Readonly<Record<string, 'write' | 'folder'>> | undefined;
  const valued = (role: 'write' | 'folder', word: Word | undefined) => {
    if (word) uses.push(use(role === 'write' ? ['write'] : BOTH, word, folders, place, role === 'folder'));
  };
  for (let at = 0; at < words.length; at++) {
    const word = words[at]!;
    if (!word.value.startsWith('-')) {
      options = WRAPPER_PATH_OPTIONS[baseName(word.value)];
      continue;
    }
    if (!options) continue;
    const long = /^--([^=]+)(?:=(.*))?$/s.exec(word.value);
    // GNU long options by unique prefix (`--out`).
    const name = long ? Object.keys(options).find((known) => known.length > 1 && known.startsWith(long[1]!)) : Object.keys(options).find((known) => known.length === 1 && word.value[1] === known);
    if (!name) continue;
    const glued = long ? long[2] : word.value.slice(2);
    valued(options[name]!, glued ? { raw: glued, value: glued, computed: word.computed } : words[++at]);
  }
  return uses;
}

/** A word as git gets it: its value, or undefined when it is only known when the line runs. */
function gitWord(word: Word): string | undefined {
  return word.computed && /[$`]/.test(word.value) ? undefined : word.value;
}

/** sed: the files its script reads (`r`, `R`) and writes (`w`, `W`, `s///w`); a script in a file, only known when the line runs, or one that cannot be read, may touch any. */
function sedScriptUses(args: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  const { scripts, file, sandboxed } = sedScripts(args);
  if (sandboxed) return [];
  const anything = (word: Word, why: string): PathUse => ({ accesses: BOTH, written: word.raw, paths: [], below: true, unknown: why });
  const uses: PathUse[] = [];
  if (file) uses.push(anything(file, `sed runs the script in ${file.raw}, which may read or write any file`));
  for (const script of scripts) {
    if (script.computed) {
      uses.push(anything(script, `sed's script ${script.raw} is only known when the line runs`));
      continue;
    }
    const effects = sedEffects(script.value);
    for (const read of effects.reads) uses.push(use(['read'], { raw: read, value: read, computed: false }, folders, place, false));
    for (const written of effects.writes) uses.push(use(['write'], { raw: written, value: written, computed: false }, folders, place, false));
    if (effects.unreadable) uses.push(anything(script, `sed: ${effects.unreadable}`));
  }
  return uses;
}

/** find: its start folders (before the first expression) are read below; `-delete`, `-exec` and `-fprint` may write. */
function findUses(args: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  const start = args.findIndex((arg) => /^[-(!]/.test(arg.value) && !/^-[HLP]$/.test(arg.value));
  const roots = (start < 0 ? args : args.slice(0, start)).filter((arg) => !/^-[HLP]$/.test(arg.value));
  const expression = start < 0 ? [] : args.slice(start);
  const writes = expression.some((arg) => /^-(delete|exec|execdir|ok|okdir)$/.test(arg.value));
  const accesses: readonly PathAccess[] = writes ? BOTH : ['read'];
  const uses = (roots.length > 0 ? roots : [{ raw: '.', value: '.', computed: false }]).map((root) => use(accesses, root, folders, place, true));
  expression.forEach((arg, index) => {
    const next = expression[index + 1];
    if (next && /^-(fprint|fprint0|fprintf|fls)$/.test(arg.value)) uses.push(use(['write'], next, folders, place, false));
  });
  // -L (before the roots) or -follow (in the expression) follows every link it meets.
  const follows = args.slice(0, start < 0 ? args.length : start).some((arg) => arg.value === '-L') || expression.some((arg) => arg.value === '-follow');
  return follows ? [...uses, ...linksFollowed(uses)] : uses;
}

/** dd: `if=` is read, `of=` written. */
function ddUses(args: readonly Word[], folders: Folders, place: CommandPlace): PathUse[] {
  return args.flatMap((arg) => {
    const match = /^(if|of)=(.*)$/s.exec(arg.value);
    if (!match) return [];
    return [use([match[1] === 'if' ? 'read' : 'write'], { raw: match[2]!, value: match[2]!, computed: arg.computed }, folders, place, false)];
  });
}

/** The uses of a sub-command's redirections: the files they read or write. */
function redirectUses(command: SubCommand, folders: Folders, place: CommandPlace): PathUse[] {
  return redirectedPaths(command).map((redirect) => {
    const raw = redirect.written.slice(redirect.written.indexOf(' ') + 1).trim();
    const op = redirect.written.slice(0, redirect.written.indexOf(' ')).replace(/^\d+/, '');
    const accesses: readonly PathAccess[] = op === '<>' ? BOTH : [redirect.access];
    return { ...use(accesses, { raw, value: redirect.target.value, computed: redirect.target.computed }, folders, place, false), written: redirect.written, redirect };
  });
}

/** Moves the line's possible folders along a `cd`/`pushd`/`popd`: every folder it may be in afterwards stays possible. */
function followDirectoryChange(command: SubCommand, runs: readonly string[], folders: Folders, place: CommandPlace): PathUse | undefined {
  const program = runs[0];
  if (program !== 'cd' && program !== 'pushd' && program !== 'popd') return undefined;
  // The words after the program as bash makes them (braces expanded, as `runs` is), wrappers and prefixes aside.
  const prefixCount = command.argv.findIndex((word) => !isAssignment(word));
  const words = (prefixCount < 0 ? [] : command.argv.slice(prefixCount)).flatMap(wordsOf);
  const target = words.slice(words.length - runs.length + 1).filter((word) => !/^-[LPe@]+$/.test(word.value));
  const first = target[0]?.value;
  if (program === 'popd' || first === '-' || (program === 'pushd' && target.length === 0) || /^[+-]\d+$/.test(first ?? '')) {
    folders.unknown = `${command.text} moves to a folder known only when the line runs`;
    return undefined;
  }
  // Every word counts (`cd "secre"{t,}` is two): bash refuses more than one, another shell may take the first.
  const located = (target.length > 0 ? target : wordsOf('~')).map((word) => locate(word, folders, place));
  const paths = uniq(located.flatMap((one) => one.paths));
  const unknown = located.find((one) => one.unknown)?.unknown;
  if (unknown) folders.unknown = unknown;
  folders.cwds = uniq([...folders.cwds, ...paths]);
  return { accesses: ['read'], written: target.map((word) => word.raw).join(' ') || '~', paths, below: false, ...(unknown ? { unknown } : {}) };
}

/**
 * `outer`: for shell text a command on an enclosing line hands on, where that command runs (its
 * folders and the enclosing line's assignments); `depth`: how many such lines enclose this one.
 */
function lineUses(commands: readonly SubCommand[], place: CommandPlace, reading: Reading, outer?: Folders, depth = 0): PathUse[] {
  const assignments = commands.flatMap((command) => command.argv.filter(isAssignment));
  const folders: Folders = outer
    ? { cwds: [...outer.cwds], assignments: [...outer.assignments, ...assignments], ...(outer.unknown ? { unknown: outer.unknown } : {}) }
    : { cwds: [resolve(place.cwd)], assignments };
  const uses: PathUse[] = [];
  // The program each command runs, wrappers and prefixes aside (`sudo cd` is no cd, `command cat` is cat).
  const programs = commands.map((command) => programWords(command.argv).argv);
  // Why a command on the line may leave links behind (tar extracting, git checkout, ln…): the other
  // commands' paths may lead anywhere by the time they are opened, those after it and those before
  // it that run beside it (`(sleep 1; cat notes) & tar -xf t.tar`, `cat notes | tar -x`).
  const makers = programs.map((runs) => mayMakeLinks(runs));
  const linksMadeFor = (index: number): string | undefined =>
    makers.find((maker, at) => maker !== undefined && (at < index || (at > index && runsBeside(commands, index, at))));
  commands.forEach((command, index) => {
    const own: PathUse[] = [...redirectUses(command, folders, place)];
    const runs = programs[index]!;
    const moved = followDirectoryChange(command, runs, folders, place);
    if (moved) {
      if (reading.everyWord) own.push(moved);
    } else own.push(...argumentUses(command, runs, folders, place, reading));
    // Handed text is judged as a line of its own, run where this command runs, one level deeper.
    own.push(...handedUses(command, depth, (handed) => lineUses(handed, place, reading, folders, depth + 1)));
    const linksMade = linksMadeFor(index);
    uses.push(...(linksMade ? own.map((found) => madeLater(found, linksMade)) : own));
  });
  return uses;
}

/** Every file and folder the parsed line reads or writes, redirections first in each sub-command. */
export function commandPathUses(commands: readonly SubCommand[], place: CommandPlace): PathUse[] {
  return lineUses(commands, place, { everyWord: false });
}

/** Every path the line names in any word (redirections, arguments, prefixes, program paths), for a check of where a line reaches. */
export function namedPathUses(commands: readonly SubCommand[], place: CommandPlace): PathUse[] {
  return lineUses(commands, place, { everyWord: true });
}

/** Whether a line run outside the sandbox stays in the workspace, or the first path that leaves it and why. */
export type WorkspaceVerdict = { readonly ok: true } | { readonly ok: false; readonly path: string; readonly reason: string };

/** The folders a host-run line is held to. */
export interface WorkspaceBounds {
  /** The workspace (every path must lie in it, as written and where its links lead). */
  readonly workspace: string;
  /** Toolgate's state folder (never touched, even when it lies in the workspace). */
  readonly stateFolder: string;
  /** HOME, for `~`. */
  readonly home: string;
  /** The passwd file for `~user` (the system's by default). */
  readonly passwdFile?: string;
}

/**
 * Whether a command line that would run on the host, outside the sandbox, only names paths inside
 * the workspace: every word of every command (after `~user`, globs, `cd` and symlinks), each
 * redirection and the folder it starts in, none of them in the state folder. A line that cannot be
 * read, holds a value known only when it runs (`$x`, `$(…)`), or runs code it does not show
 * (`bash -c`, `eval`, `npm run`) is not known to stay, so it is refused as leaving.
 */
export async function bashStaysInWorkspace(command: string, cwd: string, bounds: WorkspaceBounds): Promise<WorkspaceVerdict> {
  let commands: SubCommand[];
  try {
    commands = await parseCommand(command);
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    return { ok: false, path: cwd, reason: error.message };
  }
  const workspace = bothReadings(bounds.workspace);
  const state = bothReadings(bounds.stateFolder);
  const place = { cwd, home: bounds.home, ...(bounds.passwdFile ? { passwdFile: bounds.passwdFile } : {}) };
  const start: PathUse = { accesses: ['read'], written: cwd, paths: [resolve(cwd)], below: false };
  for (const found of [start, ...namedPathUses(commands, place)]) {
    if (found.unknown) return { ok: false, path: found.written, reason: found.unknown };
    for (const path of found.paths) {
      let named: string[];
      try {
        named = bothReadings(path);
      } catch (error) {
        if (!(error instanceof GateError)) throw error;
        return { ok: false, path, reason: error.message };
      }
      if (named.some((reading) => state.some((folder) => isInside(folder, reading) || (found.below && isInside(reading, folder))))) {
        return { ok: false, path, reason: `${found.written} reaches Toolgate's state folder ${bounds.stateFolder}` };
      }
      if (!named.every((reading) => workspace.some((folder) => isInside(folder, reading)))) {
        return { ok: false, path, reason: `${found.written} leads to ${path}, outside the workspace ${bounds.workspace} (as written or where its links lead)` };
      }
    }
  }
  return { ok: true };
}

/** A path as written and where its links lead. */
function bothReadings(path: string): string[] {
  return uniq([resolve(path), realpathOfLongestExisting(resolve(path)).real]);
}
