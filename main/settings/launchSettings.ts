import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { CapabilitySchema, type Capability } from '../../shared/manifest';
import { SETTING_KEYS, type SettingsReport } from '../../shared/settings';
import { UsageError, flag, intFlag, type ParsedArgs } from '../cli/argv';
import { DEFAULT_GRANTS, type GateOptions } from '../gate/createGate';
import { DEFAULT_PORT } from '../gate/startGate';
import type { SandboxMode } from '../hosts/sandbox';
import { readSettingsFile, settingsInForce, settingsPath } from './settings';

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
}

/** Toolgate's defaults; the workspace defaults to the folder the gate is started in. */
export function launchDefaults(cwd: string): LaunchSettings {
  return { workspace: cwd, grants: [], approvalTimeoutSeconds: 300, sandbox: 'auto', toolModules: [], pool: 2, readOnly: false, port: DEFAULT_PORT, secretEnv: [] };
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
  const grants = args.flags.get('grant')?.map((grant) => {
    const parsed = CapabilitySchema.safeParse(grant);
    if (!parsed.success) throw new UsageError(`--grant ${grant}: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  });
  const workspace = flag(args, 'workspace');
  const timeout = intFlag(args, 'approval-timeout', 1, 86_400);
  const pool = intFlag(args, 'pool', 1, 64);
  const port = intFlag(args, 'port', 0, 65_535);
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
  };
  return Object.fromEntries(Object.entries(given).filter(([, value]) => value !== undefined)) as Partial<LaunchSettings>;
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
    report: { file, fileExists: existsSync(file), entries: SETTING_KEYS.map((key) => ({ key, value: inForce[key].value, source: inForce[key].source })) },
  };
}

/** The gate options the settings come to (the defaults' grants always included). */
export function gateOptionsFrom(settings: LaunchSettings): Pick<GateOptions, 'workspace' | 'grants' | 'approvalTimeoutMs' | 'sandbox' | 'toolModules' | 'poolSize' | 'readOnly' | 'secretEnv'> & { port: number } {
  return {
    workspace: settings.workspace,
    grants: [...DEFAULT_GRANTS, ...settings.grants],
    approvalTimeoutMs: settings.approvalTimeoutSeconds * 1000,
    sandbox: settings.sandbox,
    toolModules: settings.toolModules,
    poolSize: settings.pool,
    readOnly: settings.readOnly,
    secretEnv: settings.secretEnv,
    port: settings.port,
  };
}
