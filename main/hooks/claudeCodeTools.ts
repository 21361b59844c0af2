import { closeSync, constants, fstatSync, openSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, sep } from 'node:path';
import { UPSTREAM_SEPARATOR } from '../../shared/upstream';
import { expandTilde } from '../policy/homeFolders';
import { kernelPath } from '../policy/kernelPath';

/** The largest file on disk an Edit or Write is previewed against; past it the prompt shows no diff. */
const MAX_PREVIEWED_FILE_BYTES = 16 * 1024 * 1024;

/** A file change Claude Code is about to make, for the diff a person is shown. */
export interface FileChange {
  /** Absolute path of the file. */
  readonly path: string;
  /** The file as it is now ('' when it does not exist). */
  readonly before: string;
  readonly exists: boolean;
  /** The file as the tool would leave it. */
  readonly after: string;
}

/**
 * A Claude Code tool call as Toolgate judges it: the built-in tool that does the same thing, with
 * the arguments that tool would get, so the same rules, tiers and modes apply to both.
 */
export interface EquivalentCall {
  /** The registry tool whose manifest and rules judge the call. */
  readonly tool: string;
  /** Arguments in that tool's terms (paths absolute, as Claude Code gives them). */
  readonly input: Record<string, unknown>;
  /** Absolute paths the call touches or runs in: each must lie in the workspace to be allowed unasked. */
  readonly paths: readonly string[];
  /** What Claude Code's tool_input wrote for each of `paths` (`~/../x`, `../y`), keyed by the absolute path: reasons name it so. */
  readonly written: Readonly<Record<string, string>>;
  /** The change a Write, Edit or MultiEdit would make, or why it cannot be shown. */
  readonly change?: FileChange | { readonly unshown: string };
  /** The command line a Bash call runs and the folder it runs in. */
  readonly command?: { readonly line: string; readonly cwd: string };
}

/** What a Claude Code tool is judged as: a built-in's call, Toolgate's own tool, or nothing Toolgate knows. */
export type ToolMapping = { readonly call: EquivalentCall } | { readonly unknown: string } | { readonly malformed: string };

function text(input: Record<string, unknown>, name: string): string | undefined {
  const value = input[name];
  return typeof value === 'string' ? value : undefined;
}

/**
 * A path Claude Code gave, as the kernel takes it: absolute; `~` or `~/…`, which Claude Code's file
 * tools read as HOME (judged there, never as a folder named `~` in the cwd); or relative to its cwd.
 * The home is joined as text, so kernelPath still resolves a `..` after it. `~name/…` is read as
 * that user's home folder (the passwd database) first, as a shell would, and also as a folder named
 * `~name` in the cwd: whichever Claude Code does, both are judged, and each must lie in the
 * workspace for the call to be allowed unasked.
 */
function absolutePaths(path: string, cwd: string): string[] {
  if (path === '~' || path.startsWith('~/')) return [kernelPath(`${homedir()}${path.slice(1)}`)];
  const literal = kernelPath(isAbsolute(path) ? path : `${cwd}${sep}${path}`);
  const expanded = expandTilde(path, { home: homedir(), cwd });
  return expanded.kind === 'path' ? [...new Set([kernelPath(expanded.path), literal])] : [literal];
}

/** The absolute paths a written path names, each mapped back to the text Claude Code was given. */
function writtenAs(paths: readonly string[], written: string): Record<string, string> {
  return Object.fromEntries(paths.map((path) => [path, written]));
}

/**
 * The file's text now, or why it cannot be read for a preview; a missing file is an empty one.
 * Opened without blocking and checked by its descriptor: a FIFO or device put in its place between
 * a look and the read cannot hold the gate up.
 */
function currentText(path: string): { text: string; exists: boolean } | { unshown: string } {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: '', exists: false };
    return { unshown: `${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})` };
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return { unshown: `${path} is not a regular file` };
    if (stats.size > MAX_PREVIEWED_FILE_BYTES) return { unshown: `${path} is ${stats.size} bytes, over the ${MAX_PREVIEWED_FILE_BYTES} bytes a diff is shown for` };
    return { text: readFileSync(fd, 'utf8'), exists: true };
  } finally {
    closeSync(fd);
  }
}

/** One Edit as Claude Code applies it: old_string must match once, or everywhere with replace_all. */
export interface StringEdit {
  readonly old_string: string;
  readonly new_string: string;
  readonly replace_all?: boolean;
}

/**
 * The text after Claude Code's Edit or MultiEdit edits, applied in order, or why they do not apply
 * (then Claude Code refuses the call too). An empty old_string on an empty file writes new_string.
 */
export function applyStringEdits(before: string, edits: readonly StringEdit[]): { after: string } | { failure: string } {
  let after = before;
  for (const [index, edit] of edits.entries()) {
    const which = edits.length > 1 ? `edit ${index + 1}: ` : '';
    if (edit.old_string === edit.new_string) return { failure: `${which}old_string and new_string are the same` };
    if (edit.old_string === '') {
      if (after !== '') return { failure: `${which}an empty old_string only creates a file that is empty or missing` };
      after = edit.new_string;
      continue;
    }
    const count = after.split(edit.old_string).length - 1;
    if (count === 0) return { failure: `${which}old_string is not in the file` };
    if (count > 1 && !edit.replace_all) return { failure: `${which}old_string matches ${count} times and replace_all is not set` };
    after = edit.replace_all ? after.split(edit.old_string).join(edit.new_string) : after.replace(edit.old_string, () => edit.new_string);
  }
  return { after };
}

function stringEdits(value: unknown): StringEdit[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  const edits: StringEdit[] = [];
  for (const item of value) {
    if (typeof item !== 'object' || item === null) return undefined;
    const { old_string: oldString, new_string: newString, replace_all: replaceAll } = item as Record<string, unknown>;
    if (typeof oldString !== 'string' || typeof newString !== 'string' || (replaceAll !== undefined && typeof replaceAll !== 'boolean')) return undefined;
    edits.push({ old_string: oldString, new_string: newString, ...(replaceAll !== undefined ? { replace_all: replaceAll } : {}) });
  }
  return edits;
}

/** A Write, Edit or MultiEdit judged like write_file with the content it would leave (at the first reading of its path). */
function fileWrite(filePath: string, cwd: string, edits: readonly StringEdit[] | { content: string }): EquivalentCall {
  const paths = absolutePaths(filePath, cwd);
  const written = writtenAs(paths, filePath);
  const path = paths[0]!;
  const now = currentText(path);
  if ('unshown' in now) return { tool: 'write_file', input: { path }, paths, written, change: now };
  const after = 'content' in edits ? { after: edits.content } : applyStringEdits(now.text, edits);
  if ('failure' in after) return { tool: 'write_file', input: { path }, paths, written, change: { unshown: `the edit does not apply to the file on disk (${after.failure}); Claude Code will refuse it too` } };
  return { tool: 'write_file', input: { path, content: after.after }, paths, written, change: { path, before: now.text, exists: now.exists, after: after.after } };
}

/**
 * Maps a Claude Code tool to the built-in that does the same: Bash → shell_exec, Write, Edit and
 * MultiEdit → write_file with the resulting content, Read → read_file, WebFetch → http_fetch, Grep
 * and Glob → search_files, LS → list_dir; `mcp__server__tool` → the gate's `server__tool` when it
 * serves one. Anything else is unknown (judged as a question to the person).
 */
export function equivalentCall(toolName: string, input: Record<string, unknown>, cwd: string): ToolMapping {
  const malformed = (what: string): ToolMapping => ({ malformed: `${toolName}'s tool_input has no ${what}` });
  switch (toolName) {
    case 'Bash': {
      const command = text(input, 'command');
      if (command === undefined) return malformed('command (text)');
      const folder = kernelPath(cwd);
      return { call: { tool: 'shell_exec', input: { command, cwd: folder }, paths: [folder], written: writtenAs([folder], cwd), command: { line: command, cwd: folder } } };
    }
    case 'Write': {
      const filePath = text(input, 'file_path');
      const content = text(input, 'content');
      if (filePath === undefined || content === undefined) return malformed('file_path and content (text)');
      return { call: fileWrite(filePath, cwd, { content }) };
    }
    case 'Edit':
    case 'MultiEdit': {
      const filePath = text(input, 'file_path');
      const edits = toolName === 'Edit' ? stringEdits([input]) : stringEdits(input.edits);
      if (filePath === undefined || edits === undefined) return malformed(toolName === 'Edit' ? 'file_path, old_string and new_string' : 'file_path and a list of edits');
      return { call: fileWrite(filePath, cwd, edits) };
    }
    case 'Read': {
      const filePath = text(input, 'file_path');
      if (filePath === undefined) return malformed('file_path (text)');
      const paths = absolutePaths(filePath, cwd);
      return { call: { tool: 'read_file', input: { path: paths[0]! }, paths, written: writtenAs(paths, filePath) } };
    }
    case 'Grep':
    case 'Glob':
    case 'LS': {
      // An optional path given as anything but text is not "no path": judged as the cwd, it would hide where the tool looks.
      const notText = ['path', 'pattern'].find((name) => input[name] !== undefined && input[name] !== null && typeof input[name] !== 'string');
      if (notText !== undefined) return { malformed: `${toolName}'s tool_input has a ${notText} that is not text` };
      const folder = text(input, 'path') ?? cwd;
      const folders = absolutePaths(folder, cwd);
      // A Glob pattern is a path too (`../**/*.env`, `/etc/*`): where it reaches is judged with the folder.
      const pattern = toolName === 'Glob' ? text(input, 'pattern') : undefined;
      const reach = pattern === undefined ? [] : folders.flatMap((absolute) => absolutePaths(pattern, absolute));
      const written = { ...(pattern === undefined ? {} : writtenAs(reach, pattern)), ...writtenAs(folders, folder) };
      return { call: { tool: toolName === 'LS' ? 'list_dir' : 'search_files', input: { path: folders[0]! }, paths: [...folders, ...reach], written } };
    }
    case 'WebFetch': {
      const url = text(input, 'url');
      if (url === undefined) return malformed('url (text)');
      return { call: { tool: 'http_fetch', input: { url }, paths: [], written: {} } };
    }
    default: {
      const mcp = /^mcp__([^_]+(?:_[^_]+)*)__(.+)$/.exec(toolName);
      if (mcp) return { call: { tool: `${mcp[1]}${UPSTREAM_SEPARATOR}${mcp[2]}`, input, paths: [], written: {} } };
      return { unknown: `Toolgate has no equivalent of Claude Code's ${toolName} tool, so a person decides` };
    }
  }
}
