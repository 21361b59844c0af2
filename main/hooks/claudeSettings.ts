import { randomBytes } from 'node:crypto';
import { constants, copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { findNodeAtLocation, parseTree, type Node, type ParseError } from 'jsonc-parser';
import { GateError } from '../../shared/errors';
import { shellQuote } from '../tools/shell/shellQuote';

/** The hook events install adds: PreToolUse judges each call, PostToolUse records its outcome. */
const HOOK_EVENTS = ['PreToolUse', 'PostToolUse'] as const;

const FORMAT = { tabSize: 2, insertSpaces: true, eol: '\n' };

/** Claude Code's settings file: the user's (~/.claude/settings.json) or a project's. */
export function claudeSettingsFile(projectDir?: string): string {
  return join(projectDir ?? homedir(), '.claude', 'settings.json');
}

/**
 * The command Claude Code runs: this Node and this Toolgate's bin/toolgate.js by absolute path (no
 * global install needed), with TOOLGATE_HOME when one is set, so it finds this gate.
 */
export function hookCommandLine(node: string, cli: string, home: string | undefined): string {
  const words = [node, cli, 'hook', 'claude-code'].map(shellQuote).join(' ');
  return home ? `TOOLGATE_HOME=${shellQuote(home)} ${words}` : words;
}

/** What install or uninstall did. */
export interface SettingsChange {
  /** The settings file. */
  file: string;
  /** False when there was nothing to do (installed already, or nothing of ours to remove). */
  changed: boolean;
  /** The copy of the file as it was, when there was a file and it changed. */
  backup?: string;
}

/**
 * Refuses a settings file that is a symlink: replacing it would turn the link into a file (the
 * target, say a dotfiles repo's copy, never changes), and backing it up would copy the target's
 * text beside the link, which in a project folder may be a file the project does not own.
 */
function refuseLink(file: string): void {
  let link: boolean;
  try {
    link = lstatSync(file).isSymbolicLink();
  } catch {
    return;
  }
  if (link) throw new GateError('EVALIDATION', `${file} is a symbolic link to ${readlinkSync(file)}, which Toolgate does not write through: replace the link with a copy of the file, then run this again`);
}

/** The file's text (undefined when missing) and its tree, refusing text that is not a JSON object or whose `hooks` is not one. */
function readSettings(file: string): { text: string | undefined; tree: Node | undefined } {
  refuseLink(file);
  if (!existsSync(file)) return { text: undefined, tree: undefined };
  const text = readFileSync(file, 'utf8');
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { allowTrailingComma: false, disallowComments: true });
  if (errors.length > 0 || tree?.type !== 'object') {
    throw new GateError('EVALIDATION', `${file} is not a JSON object${errors[0] ? ` (error at offset ${errors[0].offset})` : ''}; fix it, then run this again`);
  }
  const hooks = findNodeAtLocation(tree, ['hooks']);
  if (hooks && hooks.type !== 'object') throw new GateError('EVALIDATION', `hooks in ${file} is not an object of hook events; fix it, then run this again`);
  return { text, tree };
}

/** Indexes of the matcher groups of one event that hold exactly our command. */
function ourGroups(tree: Node | undefined, file: string, event: string, command: string): number[] {
  const list = tree && findNodeAtLocation(tree, ['hooks', event]);
  if (!list) return [];
  if (list.type !== 'array') throw new GateError('EVALIDATION', `hooks.${event} in ${file} is not a list; fix it, then run this again`);
  return (list.children ?? []).flatMap((group, index) => {
    const hooks = findNodeAtLocation(group, ['hooks']);
    const ours = hooks?.children?.some((hook) => findNodeAtLocation(hook, ['command'])?.value === command);
    return ours ? [index] : [];
  });
}

/** UTC time for a backup's name, e.g. 20261127T001500123Z. */
function stamp(now: Date): string {
  return now.toISOString().replace(/[-:.]/g, '');
}

/** Writes the new text atomically, after a backup of the old one beside it. */
function replaceSettings(file: string, before: string | undefined, after: string, now: Date): SettingsChange {
  mkdirSync(dirname(file), { recursive: true });
  let backup: string | undefined;
  const mode = before === undefined ? 0o600 : statSync(file).mode & 0o777;
  if (before !== undefined) {
    backup = `${file}.toolgate-backup-${stamp(now)}`;
    copyFileSync(file, backup, constants.COPYFILE_EXCL);
  }
  // A fresh name, created only if nothing is there: a link planted at a name it could guess is never written through.
  const temp = `${file}.toolgate-${randomBytes(6).toString('hex')}.tmp`;
  writeFileSync(temp, after, { mode, flag: 'wx' });
  renameSync(temp, file);
  return { file, changed: true, ...(backup ? { backup } : {}) };
}

/**
 * Adds an entry (of a list or an object, as JSON text) to a container, as text: after its last entry,
 * on a line of its own with that entry's indentation (or on the same line, for a container written
 * on one line), or inside the brackets of an empty one. jsonc-parser's modify would reformat the
 * lines around it, and every byte of the entries already there must stay.
 */
function addEntry(text: string, container: Node, entry: string): string {
  const last = container.children?.at(-1);
  if (!last) return `${text.slice(0, container.offset + 1)}${entry}${text.slice(container.offset + 1)}`;
  const lineStart = text.lastIndexOf('\n', last.offset) + 1;
  const before = text.slice(lineStart, last.offset);
  const separator = before.trim() === '' ? `,\n${before}` : ', ';
  const at = last.offset + last.length;
  return `${text.slice(0, at)}${separator}${entry}${text.slice(at)}`;
}

/** The text of an object member. */
const member = (key: string, value: unknown) => `${JSON.stringify(key)}: ${JSON.stringify(value)}`;

/** Removes one entry of a list that keeps others, as text: the exact inverse of addEntry. */
function removeEntry(text: string, entries: readonly Node[], index: number): string {
  const entry = entries[index]!;
  if (index > 0) {
    const previous = entries[index - 1]!;
    return text.slice(0, previous.offset + previous.length) + text.slice(entry.offset + entry.length);
  }
  return text.slice(0, entry.offset) + text.slice(entries[1]!.offset);
}

/**
 * Adds Toolgate's PreToolUse and PostToolUse hooks (matcher `*`: every tool) to a Claude Code
 * settings file, keeping every other byte; installing again adds nothing.
 */
export function installClaudeHooks(file: string, command: string, timeoutSeconds: number, now = new Date()): SettingsChange {
  const { text, tree } = readSettings(file);
  const group = { matcher: '*', hooks: [{ type: 'command', command, timeout: timeoutSeconds }] };
  if (text === undefined) {
    const fresh = { hooks: Object.fromEntries(HOOK_EVENTS.map((event) => [event, [group]])) };
    return replaceSettings(file, text, `${JSON.stringify(fresh, null, FORMAT.tabSize)}\n`, now);
  }
  let after = text;
  for (const event of HOOK_EVENTS) {
    if (ourGroups(tree, file, event, command).length > 0) continue;
    const root = parseTree(after)!;
    const hooks = findNodeAtLocation(root, ['hooks']);
    const list = findNodeAtLocation(root, ['hooks', event]);
    if (list) after = addEntry(after, list, JSON.stringify(group));
    else if (hooks) after = addEntry(after, hooks, member(event, [group]));
    else after = addEntry(after, root, member('hooks', { [event]: [group] }));
  }
  if (after === text) return { file, changed: false };
  return replaceSettings(file, text, after, now);
}

/** Removes exactly the groups install added (and the lists and `hooks` object left empty by that), as text: the inverse of install. */
export function uninstallClaudeHooks(file: string, command: string, now = new Date()): SettingsChange {
  const { text } = readSettings(file);
  if (text === undefined) return { file, changed: false };
  let after = text;
  for (const event of HOOK_EVENTS) {
    const ours = ourGroups(parseTree(after), file, event, command);
    const entries = findNodeAtLocation(parseTree(after)!, ['hooks', event])?.children ?? [];
    if (ours.length === 0) continue;
    if (ours.length === entries.length) {
      // A list of nothing but ours goes whole, as install made it.
      after = removeMember(after, ['hooks'], event);
      continue;
    }
    for (const index of ours.reverse()) after = removeEntry(after, findNodeAtLocation(parseTree(after)!, ['hooks', event])!.children!, index);
  }
  if (after !== text && findNodeAtLocation(parseTree(after)!, ['hooks'])?.children?.length === 0) after = removeMember(after, [], 'hooks');
  if (after === text) return { file, changed: false };
  return replaceSettings(file, text, after, now);
}

/** Removes the member `key` of the object at `path`, as text: the exact inverse of addEntry. */
function removeMember(text: string, path: string[], key: string): string {
  const root = parseTree(text)!;
  const object = path.length === 0 ? root : findNodeAtLocation(root, path)!;
  const members = object.children ?? [];
  const index = members.findIndex((member) => member.children?.[0]?.value === key);
  if (index < 0) return text;
  if (members.length === 1) return text.slice(0, object.offset + 1) + text.slice(members[0]!.offset + members[0]!.length, object.offset + object.length - 1).replace(/^\s*/, '') + text.slice(object.offset + object.length - 1);
  return removeEntry(text, members, index);
}
