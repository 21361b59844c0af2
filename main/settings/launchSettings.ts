import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CapabilitySchema, type Capability } from '../../shared/manifest';
import { SETTING_KEYS, type SettingsReport } from '../../shared/settings';
import { UsageError, flag, intFlag, type ParsedArgs } from '../cli/argv';
import type { AuditDurability } from '../audit/auditStore';
import { DEFAULT_GRANTS, type GateOptions } from '../gate/createGate';
import { DEFAULT_PORT } from '../gate/startGate';
import type { SandboxMode } from '../hosts/sandbox';
import { PolicyModeSchema, type PolicyMode } from '../../shared/policy';
import { parseRuleText, RuleError } from '../policy/ruleText';
import { loadTeamCredentials } from '../team/teamCredentials';
import { DEFAULT_STORE_BYTES } from '../undo/imageStore';
import { readSettingsFile, settingsInForce, settingsPath } from './settings';
import type { WebSearchSettings } from '../tools/webSearch/searchSettings';

/** What a gate is started with, whichever shell starts it. */
export interface LaunchSettings {
  workspace: string;
  grants: Capability[];
  approvalTimeoutSeconds: number;
  sandbox: SandboxMode;
  toolModules: string[];
  pool: number;
  readOnly: boolean;
  port: number;
  secretEnv: string[];
  /** The security mode. */
  mode: PolicyMode;
  /** What a committed audit record survives: the gate's death, or also a power loss. */
  auditDurability: AuditDurability;
  /** Where signed audit checkpoints go; null writes none. */
  checkpointDir: string | null;
  /** Records between two signed checkpoints. */
  checkpointEveryRecords: number;
  /** Longest wait, in seconds, of a written record for its checkpoint. */
  checkpointIntervalSeconds: number;
  /** Where ended calls' spans are sent (OTLP/HTTP); null: nowhere. */
  otlpEndpoint: string | null;
  /** Headers of each OTLP POST. */
  otlpHeaders: Record<string, string>;
  /** Claude Code's allowed Bash calls run in the gate's sandbox (true) or on the host (false). */
  claudeCodeBashInGate: boolean;
  /** Bytes the undo store keeps before dropping its oldest before-images. */
  undoStoreBytes: number;
  /** The search service web_search asks; null: no web_search. */
  webSearch: WebSearchSettings | null;
  /** The team's NATS server; null: no team. */
  team: string | null;
  /** The team credentials file; null: none. */
  teamCreds: string | null;
}

/** Toolgate's defaults; the workspace defaults to the folder the gate is started in. */
export function launchDefaults(cwd: string): LaunchSettings {
  return { workspace: cwd, grants: [], approvalTimeoutSeconds: 300, sandbox: 'auto', toolModules: [], pool: 2, readOnly: false, port: DEFAULT_PORT, secretEnv: [], mode: 'standard', auditDurability: 'process', checkpointDir: null, checkpointEveryRecords: 1000, checkpointIntervalSeconds: 60, otlpEndpoint: null, otlpHeaders: {}, claudeCodeBashInGate: true, undoStoreBytes: DEFAULT_STORE_BYTES, webSearch: null, team: null, teamCreds: null };
}

function isSandboxMode(mode: string): mode is SandboxMode {
  return mode === 'auto' || mode === 'require' || mode === 'off';
}

/**
 * The settings a command line gives (`serve`'s options; the desktop takes the same), as settings:
 * only those given, so the file and the defaults fill the rest. Relative paths are taken from `cwd`.
 */
export function settingsFromFlags(args: ParsedArgs, cwd: string): Partial<LaunchSettings> {
  const sandbox = flag(args, 'sandbox');
  if (sandbox !== undefined && !isSandboxMode(sandbox)) {
    throw new UsageError(`--sandbox ${sandbox}: say auto (bubblewrap when it works), require (refuse to start without it) or off`);
  }
  const mode = flag(args, 'mode');
  if (mode !== undefined && !PolicyModeSchema.safeParse(mode).success) {
    throw new UsageError(`--mode ${mode}: say strict (ask for everything above SAFE), standard (tiers plus rules) or permissive (ELEVATED work inside the workspace runs)`);
  }
  // A --grant that reads as a rule (`shell_exec(npm test)`) is an allow of the flag layer: see policyRulesFromFlags.
  const grants = args.flags.get('grant')?.flatMap((grant) => {
    const parsed = CapabilitySchema.safeParse(grant);
    if (parsed.success) return [parsed.data];
    if (isRuleText(grant)) return [];
    throw new UsageError(`--grant ${grant}: neither a capability (${parsed.error.issues[0]?.message}) nor a rule (${ruleProblem(grant)})`);
  });
  const workspace = flag(args, 'workspace');
  const timeout = intFlag(args, 'approval-timeout', 1, 86_400);
  const pool = intFlag(args, 'pool', 1, 64);
  const port = intFlag(args, 'port', 0, 65_535);
  const checkpointDir = flag(args, 'checkpoint-dir');
  const team = flag(args, 'team');
  if (team !== undefined && !(URL.canParse(team) && ['nats:', 'tls:'].includes(new URL(team).protocol))) {
    throw new UsageError(`--team ${team}: give the URL of the team's NATS server, e.g. nats://nats.example.com:4222`);
  }
  const teamCreds = flag(args, 'team-creds');
  const given: Partial<LaunchSettings> = {
    workspace: workspace === undefined ? undefined : resolve(cwd, workspace),
    grants,
    approvalTimeoutSeconds: timeout,
    sandbox,
    toolModules: args.flags.get('tools')?.map((module) => resolve(cwd, module)),
    pool,
    readOnly: flag(args, 'read-only') === 'true' ? true : undefined,
    port,
    secretEnv: args.flags.get('secret-env'),
    mode: mode as PolicyMode | undefined,
    checkpointDir: checkpointDir === undefined ? undefined : resolve(cwd, checkpointDir),
    team,
    teamCreds: teamCreds === undefined ? undefined : resolve(cwd, teamCreds),
  };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Partial<LaunchSettings>;
}

function isRuleText(text: string): boolean {
  try {
    return parseRuleText(text).specifier !== undefined || !text.includes(':');
  } catch (error) {
    if (error instanceof RuleError) return false;
    throw error;
  }
}

/** What is wrong with a --grant read as a rule, with the fix. */
function ruleProblem(text: string): string {
  try {
    parseRuleText(text);
    return 'a tool name with a specifier, e.g. shell_exec(npm test)';
  } catch (error) {
    if (error instanceof RuleError) return `${error.message}; ${error.fix}`;
    throw error;
  }
}

/** The `--grant` values that are policy rules rather than capabilities: allows of the flag layer. */
export function policyRulesFromFlags(args: ParsedArgs): string[] {
  return (args.flags.get('grant') ?? []).filter((grant) => !CapabilitySchema.safeParse(grant).success && isRuleText(grant));
}

/**
 * The settings in force for a gate about to start: command-line flags over TOOLGATE_WORKSPACE (for
 * the workspace) over `$TOOLGATE_HOME/settings.json` over the defaults, with where each came from.
 * A bad settings file throws SettingsError before anything starts.
 */
export function resolveLaunchSettings(inputs: {
  home: string;
  flags: Partial<LaunchSettings>;
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
}): { settings: LaunchSettings; report: SettingsReport } {
  const file = settingsPath(inputs.home);
  const fromFile = readSettingsFile(file);
  const environment: Partial<LaunchSettings> = inputs.env.TOOLGATE_WORKSPACE ? { workspace: resolve(inputs.cwd, inputs.env.TOOLGATE_WORKSPACE) } : {};
  const inForce = settingsInForce(launchDefaults(inputs.cwd) as unknown as Record<(typeof SETTING_KEYS)[number], unknown>, fromFile, inputs.flags, environment);
  const settings = Object.fromEntries(SETTING_KEYS.map((key) => [key, inForce[key].value])) as unknown as LaunchSettings;
  return {
    settings,
    report: { file, fileExists: existsSync(file), entries: SETTING_KEYS.map((key) => ({ key, value: reported(key, inForce[key].value), source: inForce[key].source })) },
  };
}

/** A setting as the console shows it: header values (API keys) are hidden, their names shown. */
function reported(key: (typeof SETTING_KEYS)[number], value: unknown): unknown {
  if (key !== 'otlpHeaders' || typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.keys(value).map((name) => [name, '(hidden)']));
}

/** The gate options the settings come to (the defaults' grants always included). */
export function gateOptionsFrom(settings: LaunchSettings): Pick<GateOptions, 'workspace' | 'grants' | 'approvalTimeoutMs' | 'sandbox' | 'toolModules' | 'poolSize' | 'readOnly' | 'secretEnv' | 'policyMode' | 'auditDurability' | 'checkpoints' | 'otlp' | 'claudeCodeBashInGate' | 'undoStoreBytes' | 'webSearch' | 'team'> & { port: number } {
  return {
    ...teamOptionsFrom(settings),
    workspace: settings.workspace,
    grants: [...DEFAULT_GRANTS, ...settings.grants],
    approvalTimeoutMs: settings.approvalTimeoutSeconds * 1000,
    sandbox: settings.sandbox,
    toolModules: settings.toolModules,
    poolSize: settings.pool,
    readOnly: settings.readOnly,
    secretEnv: settings.secretEnv,
    policyMode: settings.mode,
    auditDurability: settings.auditDurability,
    checkpoints: settings.checkpointDir
      ? { dir: settings.checkpointDir, everyRecords: settings.checkpointEveryRecords, intervalMs: settings.checkpointIntervalSeconds * 1000 }
      : undefined,
    ...(settings.otlpEndpoint ? { otlp: { endpoint: settings.otlpEndpoint, headers: settings.otlpHeaders } } : {}),
    claudeCodeBashInGate: settings.claudeCodeBashInGate,
    undoStoreBytes: settings.undoStoreBytes,
    ...(settings.webSearch ? { webSearch: settings.webSearch } : {}),
    port: settings.port,
  };
}

/** The team to join, with its credentials read and checked now: a bad file stops the start before anything runs. */
function teamOptionsFrom(settings: LaunchSettings): Pick<GateOptions, 'team'> {
  if (settings.team === null && settings.teamCreds === null) return {};
  if (settings.team === null) throw new UsageError('a team credentials file was given but no team server: add --team nats://HOST:4222 (or "team" in settings.json)');
  if (settings.teamCreds === null) throw new UsageError(`--team ${settings.team} needs the credentials the team's admin gave you: add --team-creds FILE (or "teamCreds" in settings.json)`);
  return { team: { url: settings.team, credentials: loadTeamCredentials(settings.teamCreds) } };
}
