import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { applyEdits, findNodeAtLocation, modify, type JSONPath } from 'jsonc-parser';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { SandboxFolderSchema, sandboxList, ServerNameSchema, UpstreamSandboxSchema, type RefusedServer, type UpstreamServerConfig } from '../../shared/upstream';
import { writeFileAtomically } from '../state/atomicFile';
import { ensureHome } from '../state/stateFolder';
import { formattingOf, objectProperties, parseJsoncTree, plainValue } from './jsoncText';

/**
 * $TOOLGATE_HOME/servers.json: the person's MCP servers in the `mcpServers` format Claude Desktop
 * and Cursor use, plus Toolgate's own `sandbox`. A bad entry is refused alone, naming its field and
 * the fix, and the others still start; only a file that is not JSON at all is refused whole.
 */

/** Where a state folder's servers file is. */
export function serversFilePath(home: string): string {
  return join(home, 'servers.json');
}

const AbsolutePathSchema = z.string().refine((path) => isAbsolute(path), {
  error: 'must be an absolute path (e.g. /home/you/projects): a relative one would depend on where the gate was started',
});

/** Names an environment variable may have: no `=` or NUL, which the OS would misread. */
const EnvMapSchema = z.record(
  z.string().regex(/^[^=\0]+$/, { error: 'an environment variable name may not be empty or hold = or NUL' }),
  z.string({ error: 'must be a string: put numbers and true/false in quotes, and secrets as "$ENV.NAME"' }),
);

/** HTTP header names are tokens: a space or line break would split the request. */
const HeaderMapSchema = z.record(
  z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, { error: 'is not a header name: letters, digits and - only, e.g. "Authorization"' }),
  z.string({ error: 'must be a string, e.g. "Bearer $ENV.GITHUB_TOKEN"' }).refine((value) => !/[\r\n\0]/.test(value), { error: 'may not hold a line break' }),
);

/** Hosts plain http may reach: only this machine, where nobody on the way can read or change it. */
function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Why `url` may not be reached, or undefined when it may. */
function urlProblem(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `${JSON.stringify(url)} is not a URL: write the server's full address, e.g. "https://mcp.example.com/mcp"`;
  }
  if (parsed.protocol === 'http:' && !isLoopback(parsed.hostname)) {
    return `plain http to ${parsed.hostname} would send your requests and tokens readable on the way: use https://${parsed.host}${parsed.pathname} (plain http only reaches localhost)`;
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    return `the ${parsed.protocol} scheme is not a way to reach an MCP server: use an https:// URL (or http:// to localhost)`;
  }
  if (parsed.username || parsed.password) {
    return 'holds a user name or password, which would be logged with the URL: send it in "headers" as "$ENV.NAME" instead';
  }
  return undefined;
}

/** A sandbox folder as servers.json holds it: the shared rules (length), and absolute. */
const SandboxFolderEntrySchema = SandboxFolderSchema.pipe(AbsolutePathSchema);

/**
 * A sandbox as servers.json holds it: the shared schema (its limits and variable names), with its
 * folders absolute. The Tools view and `servers sandbox` write through this same check.
 */
const SandboxEntrySchema = UpstreamSandboxSchema.extend({
  readable: sandboxList(SandboxFolderEntrySchema, 'folders'),
  writable: sandboxList(SandboxFolderEntrySchema, 'folders'),
}).strict();

/** A server Toolgate starts: a program and its arguments, run in its sandbox. */
const StdioEntrySchema = z
  .object({
    /** The transport; implied by `command`. */
    type: z.literal('stdio').optional(),
    /** The program to start (found on PATH), e.g. `npx`. */
    command: z.string().refine((command) => command.trim().length > 0, { error: 'is empty: name the program to start, e.g. "npx"' }),
    /** Its arguments, each one string. */
    args: z.array(z.string({ error: 'must be a string: quote numbers and paths' })).default([]),
    /** Variables set for it; a value `$ENV.NAME` is a secret resolved when it starts. */
    env: EnvMapSchema.default({}),
    /** The folder it starts in (absolute). */
    cwd: AbsolutePathSchema.optional(),
    /** Listed, never started. */
    disabled: z.boolean().optional(),
    /** What it may reach inside its sandbox (nothing but its own files by default). */
    sandbox: SandboxEntrySchema.optional(),
  })
  .strict();

/** A server Toolgate reaches over Streamable HTTP. */
const HttpEntrySchema = z
  .object({
    /** The transport; implied by `url`. */
    type: z.enum(['http', 'streamable-http']).optional(),
    /** Its MCP endpoint: https, or http to this machine only. */
    url: z.string().superRefine((url, context) => {
      const problem = urlProblem(url);
      if (problem) context.addIssue({ code: 'custom', message: problem });
    }),
    /** Sent with every request; a value may hold `$ENV.NAME` secrets. */
    headers: HeaderMapSchema.default({}),
    /** Listed, never reached. */
    disabled: z.boolean().optional(),
  })
  .strict();

/** What one entry of mcpServers comes to. */
export type ParsedEntry = { kind: 'server'; config: UpstreamServerConfig } | { kind: 'disabled' } | { kind: 'refused'; refused: RefusedServer };

/** The fields of each transport, to say which one a misplaced field belongs to. */
const STDIO_FIELDS = Object.keys(StdioEntrySchema.shape);
const HTTP_FIELDS = Object.keys(HttpEntrySchema.shape);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The refusal for a field the entry's transport does not take: misplaced, or a typo. */
function unknownField(name: string, field: string, stdio: boolean): RefusedServer {
  const fields = stdio ? STDIO_FIELDS : HTTP_FIELDS;
  const misplaced = (stdio ? HTTP_FIELDS : STDIO_FIELDS).includes(field);
  const message = misplaced
    ? `"${field}" is for a server ${stdio ? 'reached by url' : 'started by command'}, and this one is ${stdio ? 'started by command' : 'reached by url'}: remove it`
    : `"${field}" is not a field Toolgate knows (a typo would be ignored silently, so it is refused): the fields are ${fields.join(', ')}`;
  return { name, field, message };
}

/** How each field is written, for a field of the wrong type. */
const FIELD_EXAMPLES: Record<string, string> = {
  command: '"npx"',
  args: '["-y", "@modelcontextprotocol/server-github"]',
  env: '{"GITHUB_TOKEN": "$ENV.GITHUB_TOKEN"}',
  cwd: '"/home/you/projects"',
  url: '"https://mcp.example.com/mcp"',
  headers: '{"Authorization": "Bearer $ENV.TOKEN"}',
  disabled: 'true',
  sandbox: '{"network": false, "writable": ["/home/you/notes"]}',
  'sandbox.network': 'true',
  'sandbox.readable': '["/home/you/docs"]',
  'sandbox.writable': '["/home/you/notes"]',
  'sandbox.env': '["GITHUB_TOKEN"]',
};

/** The refusal for the first problem zod found, with the field as a dotted path. */
function refusalOf(name: string, error: z.ZodError, stdio: boolean): RefusedServer {
  const issue = error.issues[0]!;
  const path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys') {
    const field = [...path, issue.keys[0]!].join('.');
    if (path.length === 0) return unknownField(name, field, stdio);
    return { name, field, message: `"${field}" is not a field Toolgate knows: ${path[0] === 'sandbox' ? 'the sandbox takes network, readable, writable and env' : 'remove it'}` };
  }
  const field = path.join('.');
  const text = issue.message.replace(/^Invalid input: /, '');
  const example = issue.code === 'invalid_type' ? FIELD_EXAMPLES[field] : undefined;
  return { name, field, message: example ? `${text}: write it like "${field}": ${example}` : text };
}

/**
 * Checks one entry of mcpServers: its name, its transport and every field. A disabled entry is
 * checked too (its fault is found before it is enabled), and when sound it is listed as disabled.
 */
export function parseServerEntry(name: string, raw: unknown): ParsedEntry {
  const refuse = (field: string, message: string): ParsedEntry => ({ kind: 'refused', refused: { name, field, message } });
  const named = ServerNameSchema.safeParse(name);
  if (!named.success) {
    return refuse('name', `the server name ${JSON.stringify(name)} is refused (${named.error.issues[0]!.message}): rename its key in mcpServers, e.g. "github"`);
  }
  if (!isObject(raw)) return refuse('', 'an entry is an object: {"command": "npx", "args": [...]} or {"url": "https://..."}');
  if (raw.type === 'sse') {
    return refuse('type', 'the SSE transport is not supported: use the server\'s Streamable HTTP endpoint (often ending in /mcp) with "type": "http", or start it locally with "command"');
  }
  const hasCommand = 'command' in raw;
  const hasUrl = 'url' in raw;
  if (hasCommand === hasUrl) {
    return hasCommand
      ? refuse('url', 'an entry has either "command" (a program Toolgate starts) or "url" (a server it reaches), not both: remove one')
      : refuse('command', 'an entry needs "command" (a program Toolgate starts, with "args") or "url" (a server it reaches over https)');
  }
  if (raw.type !== undefined && (hasCommand ? raw.type !== 'stdio' : raw.type !== 'http' && raw.type !== 'streamable-http')) {
    return refuse('type', `"type": ${JSON.stringify(raw.type)} does not fit an entry with ${hasCommand ? '"command" (use "stdio", or leave type out)' : '"url" (use "http", or leave type out)'}`);
  }
  if (hasCommand) {
    const parsed = StdioEntrySchema.safeParse(raw);
    if (!parsed.success) return { kind: 'refused', refused: refusalOf(name, parsed.error, true) };
    if (parsed.data.disabled) return { kind: 'disabled' };
    const { command, args, env, cwd, sandbox } = parsed.data;
    return { kind: 'server', config: { name, transport: 'stdio', command, args, env, ...(cwd ? { cwd } : {}), sandbox: UpstreamSandboxSchema.parse(sandbox ?? {}) } };
  }
  const parsed = HttpEntrySchema.safeParse(raw);
  if (!parsed.success) return { kind: 'refused', refused: refusalOf(name, parsed.error, false) };
  if (parsed.data.disabled) return { kind: 'disabled' };
  return { kind: 'server', config: { name, transport: 'http', url: parsed.data.url, headers: parsed.data.headers } };
}

/** servers.json as read: the servers to run, the entries refused and the names disabled. */
export interface ServersFileContents {
  servers: UpstreamServerConfig[];
  refused: RefusedServer[];
  disabled: string[];
  /** Every entry as written, by name (refused ones too), for edits that keep them. */
  entries: Record<string, unknown>;
}

/** The servers file as data: `mcpServers`, each entry as written. */
export interface ServersFile {
  mcpServers: Record<string, unknown>;
}

/**
 * Reads the text of a servers file (`source` names it in errors). Text that is not JSON, or is
 * not an object holding only `mcpServers`, throws a GateError; a bad entry is refused alone.
 */
export function parseServersFile(text: string, source: string): ServersFileContents {
  const contents: ServersFileContents = { servers: [], refused: [], disabled: [], entries: {} };
  const tree = parseJsoncTree(text, source);
  if (!tree) return contents;
  const example = '{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}}';
  if (tree.type !== 'object') throw new GateError('EVALIDATION', `${source} must hold one JSON object, e.g. ${example}`);
  const unknown = objectProperties(tree).find((property) => property.key !== 'mcpServers');
  if (unknown) throw new GateError('EVALIDATION', `${source}: "${unknown.key}" is not a key of the servers file, which holds only "mcpServers", e.g. ${example}`);
  const servers = findNodeAtLocation(tree, ['mcpServers']);
  if (!servers) return contents;
  if (servers.type !== 'object') throw new GateError('EVALIDATION', `${source}: "mcpServers" must be an object of servers by name, e.g. ${example}`);
  const properties = objectProperties(servers);
  // A name written twice is refused whole: neither copy starts, since either could be the one meant.
  const twice = new Set(properties.filter((property, index) => properties.findIndex((other) => other.key === property.key) !== index).map((property) => property.key));
  for (const { key: name, value } of properties) {
    if (Object.hasOwn(contents.entries, name)) continue;
    const raw = plainValue(value);
    contents.entries[name] = raw;
    if (twice.has(name)) {
      contents.refused.push({ name, field: 'name', message: `"${name}" is written more than once in mcpServers: keep one` });
      continue;
    }
    const entry = parseServerEntry(name, raw);
    if (entry.kind === 'server') contents.servers.push(entry.config);
    else if (entry.kind === 'disabled') contents.disabled.push(name);
    else contents.refused.push(entry.refused);
  }
  return contents;
}

/** Reads $TOOLGATE_HOME/servers.json; a missing file is no servers. */
export function readServersFile(home: string): ServersFileContents {
  const path = serversFilePath(home);
  if (!existsSync(path)) return { servers: [], refused: [], disabled: [], entries: {} };
  return parseServersFile(readFileSync(path, 'utf8'), path);
}

/**
 * Saves `file` as servers.json, atomically and owner-only (0600). Only what changed is edited in
 * the text, down to the field: entries left as they were, the fields of an entry that did not
 * change (a sandbox chosen in the Tools view changes only its sandbox), and the comments around
 * them stay as written; only white space changes on the lines an added field lands on (an entry
 * written on one line is laid out over several). A changed or added entry that would be refused
 * throws, naming the field, and nothing is written.
 */
export function writeServersFile(home: string, file: ServersFile): void {
  const path = serversFilePath(home);
  const before = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const current = parseServersFile(before, path).entries;
  let text = before.trim() === '' ? '{\n  "mcpServers": {}\n}\n' : before;
  const formattingOptions = formattingOf(text);
  // A new key goes first in its object: an insertion reformats the lines it touches, and after `{`
  // that is no other entry's or field's.
  const edit = (at: JSONPath, value: unknown) => {
    text = applyEdits(text, modify(text, at, value, { formattingOptions, getInsertionIndex: () => 0 }));
  };
  for (const name of Object.keys(current)) if (!Object.hasOwn(file.mcpServers, name)) edit(['mcpServers', name], undefined);
  for (const [name, entry] of Object.entries(file.mcpServers)) {
    if (isDeepStrictEqual(current[name], entry)) continue;
    const parsed = parseServerEntry(name, entry);
    if (parsed.kind === 'refused') {
      const { field, message } = parsed.refused;
      throw new GateError('EVALIDATION', `${path} was not changed: ${name}${field ? ` ${field}` : ''}: ${message}`, parsed.refused);
    }
    editChanged(['mcpServers', name], Object.hasOwn(current, name) ? current[name] : undefined, entry, edit);
  }
  if (text === before) return;
  ensureHome(home);
  writeFileAtomically(path, text, 0o600);
}

/** Edits `at` from `before` to `after`: objects key by key (so what is unchanged keeps its text), anything else whole. */
function editChanged(at: JSONPath, before: unknown, after: unknown, edit: (at: JSONPath, value: unknown) => void): void {
  if (isDeepStrictEqual(before, after)) return;
  if (!isObject(before) || !isObject(after)) return edit(at, after);
  for (const key of Object.keys(before)) if (!Object.hasOwn(after, key)) edit([...at, key], undefined);
  for (const [key, value] of Object.entries(after)) editChanged([...at, key], Object.hasOwn(before, key) ? before[key] : undefined, value, edit);
}
