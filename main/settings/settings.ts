import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { CapabilitySchema } from '../../shared/manifest';
import { nearestName } from '../../shared/nearestName';
import { PolicyModeSchema } from '../../shared/policy';
import { SETTING_KEYS, type SettingKey, type SettingSource } from '../../shared/settings';
import { WebSearchSettingsSchema } from '../tools/webSearch/searchSettings';

/** A path in the settings file: absolute, or `~/…` for the person's home. */
const SettingsPathSchema = z
  .string()
  .min(1, 'is empty')
  .refine((path) => isAbsolute(path) || path === '~' || path.startsWith('~/'), 'is relative; write an absolute path or one starting with ~/');

/**
 * `$TOOLGATE_HOME/settings.json`: what both shells (desktop and `toolgate serve`) start with. Every
 * key is optional; command-line flags override the file, the file overrides the defaults. Unknown
 * keys are refused (a typo must not silently fall back to a default).
 */
export const SettingsFileSchema = z.strictObject({
  /** The folder tools may touch (must exist). */
  workspace: SettingsPathSchema.optional(),
  /** Capabilities granted to tools beyond the defaults, e.g. "net:read:docs.python.org". */
  grants: z.array(CapabilitySchema).optional(),
  /** Seconds an unanswered prompt waits before it is denied. */
  approvalTimeoutSeconds: z.number().int().min(1).max(86_400).optional(),
  /** Tool processes in bubblewrap when it works (auto), always (require), or never (off). */
  sandbox: z.enum(['auto', 'require', 'off']).optional(),
  /** ES modules of more tools to load. */
  toolModules: z.array(SettingsPathSchema).optional(),
  /** Warm tool processes to keep. */
  pool: z.number().int().min(1).max(64).optional(),
  /** Refuse every tool that writes or spawns. */
  readOnly: z.boolean().optional(),
  /** The loopback port of MCP and the console (0 picks a free one). */
  port: z.number().int().min(0).max(65_535).optional(),
  /** Environment variables tools may receive as $ENV.NAME, besides the stored secrets. */
  secretEnv: z.array(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'is not a variable name')).optional(),
  /** The security mode: strict asks above SAFE, standard is tiers plus rules, permissive lets ELEVATED work in the workspace run. */
  mode: PolicyModeSchema.optional(),
  /** What a committed audit record survives: the gate killed or crashing ("process"), or also a power loss ("power", one fsync per group commit). */
  auditDurability: z.enum(['process', 'power']).optional(),
  /** Where signed checkpoints of the audit log go: outside the state folder and the workspace. */
  checkpointDir: SettingsPathSchema.optional(),
  /** Records between two signed checkpoints (one is also written every checkpointIntervalSeconds and at shutdown). */
  checkpointEveryRecords: z.number().int().min(1).max(1_000_000).optional(),
  /** Longest time, in seconds, a written record waits for a signed checkpoint. */
  checkpointIntervalSeconds: z.number().int().min(1).max(86_400).optional(),
  /** An OTLP/HTTP traces endpoint each ended call's span is sent to (e.g. http://localhost:4318/v1/traces); absent: none. */
  otlpEndpoint: z
    .string()
    .refine((text) => URL.canParse(text) && ['http:', 'https:'].includes(new URL(text).protocol), 'is not an http:// or https:// URL')
    .optional(),
  /** Headers sent with each OTLP POST (e.g. a collector's API key); shown in the console by name only. */
  otlpHeaders: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, 'is not a header name'), z.string().max(4096)).optional(),
  /** Claude Code's allowed Bash calls run in the gate's sandbox, as shell_exec does (true, the default), or on the host by Claude Code (false). */
  claudeCodeBashInGate: z.boolean().optional(),
  /** Bytes the undo store keeps of files as they were before calls changed them; past it the oldest are dropped and their calls can no longer be undone. */
  undoStoreBytes: z.number().int().min(0).max(2 ** 40).optional(),
  /** The search service web_search asks: {"provider": "searxng" | "brave" | "tavily", "url"?, "keySecret"?}; absent: no web_search. */
  webSearch: WebSearchSettingsSchema.optional(),
  /** The team's NATS server to join (nats:// or tls:// URL); needs teamCreds. Absent: no team. */
  team: z
    .string()
    .refine((text) => URL.canParse(text) && ['nats:', 'tls:'].includes(new URL(text).protocol), 'is not a nats:// or tls:// URL')
    .optional(),
  /** The member's team credentials file (see docs/team.md). */
  teamCreds: SettingsPathSchema.optional(),
});

/** The settings file's contents, as checked. */
export type SettingsFile = z.infer<typeof SettingsFileSchema>;

/** How each key is fixed: the fix a person reads when the file gives a wrong value. */
const FIX: Record<SettingKey, string> = {
  workspace: 'an absolute path (or ~/…) of an existing folder, e.g. "~/code/my-project"',
  grants: 'a list of capabilities, e.g. ["net:read:docs.python.org", "fs:write:.vscode/**"]',
  approvalTimeoutSeconds: 'a whole number of seconds from 1 to 86400, e.g. 300',
  sandbox: '"auto", "require" or "off"',
  toolModules: 'a list of absolute paths (or ~/…) of tool modules, e.g. ["~/tools/tools.mjs"]',
  pool: 'a whole number from 1 to 64, e.g. 2',
  readOnly: 'true or false',
  port: 'a whole number from 0 to 65535, e.g. 7749',
  secretEnv: 'a list of environment variable names, e.g. ["GITHUB_TOKEN"]',
  mode: '"strict", "standard" or "permissive"',
  auditDurability: '"process" (records survive the gate being killed) or "power" (they also survive a power loss)',
  checkpointDir: 'an absolute path (or ~/…) of a folder outside the state folder and the workspace, e.g. "~/toolgate-checkpoints"',
  checkpointEveryRecords: 'a whole number of records from 1 to 1000000, e.g. 1000',
  checkpointIntervalSeconds: 'a whole number of seconds from 1 to 86400, e.g. 60',
  otlpEndpoint: 'the URL of an OTLP/HTTP traces endpoint, e.g. "http://localhost:4318/v1/traces"',
  otlpHeaders: 'an object of header names and values, e.g. {"x-api-key": "…"}',
  claudeCodeBashInGate: 'true (Claude Code\'s allowed Bash calls run in the gate\'s sandbox) or false (Claude Code runs them on the host)',
  undoStoreBytes: 'a whole number of bytes, e.g. 1073741824 (1 GiB); 0 keeps no before-images, so no call can be undone',
  webSearch: '{"provider": "searxng", "url": "https://searx.example.org/search"}, or {"provider": "brave", "keySecret": "BRAVE_API_KEY"} (likewise "tavily") with the key stored by `toolgate secret set BRAVE_API_KEY --for web_search:api.search.brave.com`',
  team: 'the URL of the team\'s NATS server, e.g. "nats://nats.example.com:4222"',
  teamCreds: 'an absolute path (or ~/…) of the team credentials file the team\'s admin gave you, e.g. "~/.config/toolgate/team.json"',
};

/** A settings file that cannot be used: names the file, the field and the fix. Nothing starts. */
export class SettingsError extends GateError {
  constructor(
    readonly file: string,
    readonly field: string | undefined,
    problem: string,
    fix: string,
  ) {
    super('EVALIDATION', `${file}${field ? `: "${field}"` : ''} ${problem}. Fix: ${fix}. Toolgate did not start; the file was not changed.`);
    this.name = 'SettingsError';
  }
}

/** `~/x` to the home folder's x; absolute paths as they are. */
export function expandHome(path: string, home = homedir()): string {
  return path === '~' ? home : path.startsWith('~/') ? join(home, path.slice(2)) : path;
}

/** The line and column of a character offset in a text, 1-based. */
export function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before.at(-1)!.length + 1}`;
}

/**
 * Reads and checks the settings file; an absent file is no settings. Throws SettingsError naming
 * the file, the field and the fix for anything else that is wrong: not JSON, not an object, an
 * unknown key, a wrong type, a workspace that does not exist.
 */
export function readSettingsFile(path: string, home = homedir()): SettingsFile {
  if (!existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new SettingsError(path, undefined, `cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, 'make it readable by you, or remove it');
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    const position = /position (\d+)/.exec((error as Error).message)?.[1];
    const where = position !== undefined ? ` at ${lineColumn(text, Number(position))}` : '';
    throw new SettingsError(path, undefined, `is not JSON${where} (${(error as Error).message})`, 'write one JSON object, e.g. {"workspace": "~/code/my-project"}');
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new SettingsError(path, undefined, 'is not a JSON object', 'write one JSON object, e.g. {"workspace": "~/code/my-project"}');
  }
  const parsed = SettingsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0]!;
      const near = nearestName(key, SETTING_KEYS);
      throw new SettingsError(path, key, 'is not a setting', `${near ? `did you mean "${near}"? ` : ''}the settings are ${SETTING_KEYS.join(', ')}`);
    }
    const key = String(issue.path[0]) as SettingKey;
    const field = issue.path.map(String).join('.');
    throw new SettingsError(path, field, issue.message.replace(/^Invalid input: /, ''), FIX[key] ?? 'see docs/settings.md');
  }
  // Paths come back absolute, with ~ expanded.
  const settings = {
    ...parsed.data,
    ...(parsed.data.workspace !== undefined ? { workspace: resolve(expandHome(parsed.data.workspace, home)) } : {}),
    ...(parsed.data.checkpointDir !== undefined ? { checkpointDir: resolve(expandHome(parsed.data.checkpointDir, home)) } : {}),
    ...(parsed.data.teamCreds !== undefined ? { teamCreds: resolve(expandHome(parsed.data.teamCreds, home)) } : {}),
    ...(parsed.data.toolModules !== undefined ? { toolModules: parsed.data.toolModules.map((module) => resolve(expandHome(module, home))) } : {}),
  };
  if (settings.workspace !== undefined && !(existsSync(settings.workspace) && statSync(settings.workspace).isDirectory())) {
    throw new SettingsError(path, 'workspace', `is ${settings.workspace}, which is not an existing folder`, `create it (mkdir -p ${settings.workspace}) or name another one`);
  }
  return settings;
}

/** The settings file of a state folder. */
export function settingsPath(stateHome: string): string {
  return join(stateHome, 'settings.json');
}

/** One setting in force, and where its value came from. */
export interface SettingInForce<T> {
  value: T;
  source: SettingSource;
}

/**
 * Puts the layers together, key by key: a flag (or, for the workspace, TOOLGATE_WORKSPACE) wins
 * over the file, the file over the default. Lists are not merged: the higher layer's list is the one.
 */
export function settingsInForce<T extends Record<SettingKey, unknown>>(
  defaults: T,
  file: SettingsFile,
  flags: Partial<T>,
  environment: Partial<T> = {},
): { [K in SettingKey]: SettingInForce<T[K]> } {
  const result = {} as { [K in SettingKey]: SettingInForce<T[K]> };
  for (const key of SETTING_KEYS) {
    const fileValue = file[key] as T[typeof key] | undefined;
    if (flags[key] !== undefined) result[key] = { value: flags[key] as T[typeof key], source: 'flag' };
    else if (environment[key] !== undefined) result[key] = { value: environment[key] as T[typeof key], source: 'environment' };
    else if (fileValue !== undefined) result[key] = { value: fileValue, source: 'file' };
    else result[key] = { value: defaults[key], source: 'default' };
  }
  return result;
}
