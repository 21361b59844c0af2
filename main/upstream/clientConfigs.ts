import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { posix, resolve, win32 } from 'node:path';
import { findNodeAtLocation } from 'jsonc-parser';
import { GateError } from '../../shared/errors';
import { objectProperties, parseJsoncTree, plainValue } from './jsoncText';

/**
 * Where Claude Desktop, Claude Code and Cursor keep their MCP servers, and their entries turned into
 * servers.json entries: the fields Toolgate takes, their `${VAR}` references made `$ENV.VAR`
 * secrets where Toolgate resolves them, and everything else dropped and said.
 */

/** The clients whose config `--from` can name. */
export const CLIENT_NAMES = ['claude-desktop', 'claude-code', 'cursor'] as const;
export type ClientName = (typeof CLIENT_NAMES)[number];

/** One client config file: which client it is for (`file` for a path given as is) and where. */
export interface ClientConfig {
  client: ClientName | 'file';
  path: string;
}

/** What the paths depend on; the process's own by default (tests pass others). */
export interface ClientLookup {
  /** A project folder: its `.mcp.json` (Claude Code) or `.cursor/mcp.json` (Cursor). */
  project?: string;
  userHome?: string;
  platform?: NodeJS.Platform;
  env?: NodeJS.ProcessEnv;
}

/** Claude Desktop's config: in Application Support on macOS, %APPDATA% on Windows, ~/.config on Linux. */
function claudeDesktopPath(userHome: string, platform: NodeJS.Platform, env: NodeJS.ProcessEnv): string {
  if (platform === 'win32') return win32.join(env.APPDATA ?? win32.join(userHome, 'AppData', 'Roaming'), 'Claude', 'claude_desktop_config.json');
  if (platform === 'darwin') return posix.join(userHome, 'Library', 'Application Support', 'Claude', 'claude_desktop_config.json');
  return posix.join(env.XDG_CONFIG_HOME || posix.join(userHome, '.config'), 'Claude', 'claude_desktop_config.json');
}

/**
 * The config file `from` names: a client (its user config, or with `project` that project's) or a
 * path to any file holding `mcpServers`. Claude Code keeps user-scope servers at the top of
 * ~/.claude.json and a project's shared ones in its .mcp.json; Cursor in ~/.cursor/mcp.json and a
 * project's .cursor/mcp.json.
 */
export function clientConfigPath(from: string, lookup: ClientLookup = {}): ClientConfig {
  const userHome = lookup.userHome ?? homedir();
  const platform = lookup.platform ?? process.platform;
  const join = platform === 'win32' ? win32.join : posix.join;
  const project = lookup.project === undefined ? undefined : resolve(lookup.project);
  switch (from) {
    case 'claude-desktop':
      if (project) throw new GateError('EVALIDATION', 'Claude Desktop has no project config: leave out --project');
      return { client: from, path: claudeDesktopPath(userHome, platform, lookup.env ?? process.env) };
    case 'claude-code':
      return { client: from, path: project ? join(project, '.mcp.json') : join(userHome, '.claude.json') };
    case 'cursor':
      return { client: from, path: project ? join(project, '.cursor', 'mcp.json') : join(userHome, '.cursor', 'mcp.json') };
  }
  if (project) throw new GateError('EVALIDATION', `--project goes with --from claude-code or cursor, not with a file (${from})`);
  if (!from.includes('/') && !from.includes('\\') && !from.endsWith('.json') && !existsSync(from)) {
    throw new GateError('EVALIDATION', `--from takes ${CLIENT_NAMES.join(', ')} or the path of a file holding "mcpServers", not ${JSON.stringify(from)}`);
  }
  return { client: 'file', path: resolve(from) };
}

/** A client config as read: its bytes and text, and its servers as written. */
export interface ClientServers {
  config: ClientConfig;
  bytes: Buffer;
  text: string;
  servers: { name: string; raw: unknown }[];
}

/** Reads a client config's `mcpServers`; a missing file, text that is not JSON or no `mcpServers` throws, naming the file. */
export function readClientServers(config: ClientConfig): ClientServers {
  const { path } = config;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new GateError(
      'EVALIDATION',
      code === 'ENOENT'
        ? `there is no ${config.client === 'file' ? 'file' : `${config.client} config`} at ${path}${config.client === 'file' ? '' : ': is the client set up on this machine (or are its servers in a project: --project DIR)?'}`
        : `${path} cannot be read (${code ?? (error as Error).message}): make it readable by you`,
    );
  }
  const text = bytes.toString('utf8');
  const tree = parseJsoncTree(text, path);
  const serversNode = tree?.type === 'object' ? findNodeAtLocation(tree, ['mcpServers']) : undefined;
  if (!serversNode || serversNode.type !== 'object') {
    const hint = config.client === 'claude-code' ? ' (Claude Code keeps a project\'s servers in its .mcp.json: --project DIR)' : '';
    throw new GateError('EVALIDATION', `${path} holds no "mcpServers" object, so there is nothing to import${hint}`);
  }
  return { config, bytes, text, servers: objectProperties(serversNode).map(({ key, value }) => ({ name: key, raw: plainValue(value) })) };
}

/** The fields of a client's entry that servers.json takes; the rest are the client's own. */
const KEPT_FIELDS = ['type', 'command', 'args', 'env', 'cwd', 'url', 'headers', 'disabled'] as const;

/** Something the conversion changed or could not, for the person to read. */
export interface ImportNote {
  field: string;
  message: string;
}

/** A client's entry as a servers.json entry, with what was dropped and what to know. */
export interface ConvertedEntry {
  entry: unknown;
  /** Fields Toolgate does not take (`alwaysAllow`, `autoApprove`, `timeout`…), dropped. */
  dropped: string[];
  notes: ImportNote[];
}

/** `${VAR}`, `${VAR:-default}` (Claude Code) and `${env:VAR}` (Cursor) references. */
const REFERENCE = /\$\{(env:)?([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;
/** The names a `$ENV.NAME` secret may have. */
const SECRET_NAME = /^[A-Z_][A-Z0-9_]*$/;

/**
 * A value's variable references as `$ENV.NAME` secrets (env and header values, which the gate
 * resolves when the server starts); elsewhere, or for a name no secret can have, left as text and said.
 */
function convertReferences(value: string, field: string, resolved: boolean, notes: ImportNote[]): string {
  return value.replace(REFERENCE, (reference, _env: string | undefined, name: string, fallback: string | undefined) => {
    if (!resolved) {
      notes.push({ field, message: `${reference} is left as text: Toolgate expands variables only in env and header values (move it into "env")` });
      return reference;
    }
    if (!SECRET_NAME.test(name)) {
      notes.push({ field, message: `${reference} is left as text: a secret's name is capital letters, digits and _` });
      return reference;
    }
    const dropped = fallback === undefined ? '' : ` (its default ${JSON.stringify(fallback)} is not kept)`;
    notes.push({ field, message: `${reference} became $ENV.${name}${dropped}: store it with \`toolgate secret set ${name}\`` });
    return `$ENV.${name}`;
  });
}

/** A string map's values converted, other values left for the entry check to refuse. */
function convertMap(map: unknown, field: string, notes: ImportNote[]): unknown {
  if (typeof map !== 'object' || map === null || Array.isArray(map)) return map;
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, typeof value === 'string' ? convertReferences(value, `${field}.${key}`, true, notes) : value]));
}

/** Turns one client entry into a servers.json entry (checked afterwards like any entry). */
export function convertClientEntry(raw: unknown): ConvertedEntry {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return { entry: raw, dropped: [], notes: [] };
  const source = raw as Record<string, unknown>;
  const notes: ImportNote[] = [];
  const entry: Record<string, unknown> = {};
  for (const field of KEPT_FIELDS) {
    const value = source[field];
    if (value === undefined) continue;
    if (field === 'env' || field === 'headers') entry[field] = convertMap(value, field, notes);
    else if (typeof value === 'string') entry[field] = convertReferences(value, field, false, notes);
    else if (field === 'args' && Array.isArray(value)) entry[field] = value.map((arg, index) => (typeof arg === 'string' ? convertReferences(arg, `args.${index}`, false, notes) : arg));
    else entry[field] = value;
  }
  // Claude Code and Cursor write "stdio" for a command; servers.json implies it.
  if (entry.type === 'stdio' && entry.command !== undefined) delete entry.type;
  const dropped = Object.keys(source).filter((field) => !(KEPT_FIELDS as readonly string[]).includes(field));
  return { entry, dropped, notes };
}

/** Whether a client entry is Toolgate's own stdio bridge (importing it would loop the gate into itself). */
export function isToolgateBridge(raw: unknown): boolean {
  if (typeof raw !== 'object' || raw === null) return false;
  const { command, args } = raw as { command?: unknown; args?: unknown };
  const words = [command, ...(Array.isArray(args) ? args : [])].filter((word): word is string => typeof word === 'string');
  return words.includes('mcp') && words.some((word) => /^toolgate(\.js|\.cmd)?$/.test(win32.basename(word)));
}
