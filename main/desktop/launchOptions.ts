import { join, resolve } from 'node:path';
import { parseCommandLine } from '../cli/commandSpec';
import { SERVE_SPEC } from '../cli/commandSpecs';
import { policyRulesFromFlags, resolveLaunchSettings, settingsFromFlags, type LaunchSettings } from '../settings/launchSettings';
import type { SettingsReport } from '../../shared/settings';

/** What the desktop gate starts with: its state folder and the settings in force. */
export interface LaunchOptions {
  /** State folder: audit database, tokens, settings and policy files. */
  home: string;
  /** The settings in force: flags over TOOLGATE_WORKSPACE over settings.json over the defaults. */
  settings: LaunchSettings;
  /** Where each setting came from, for the console's Settings view. */
  report: SettingsReport;
  /** Allow rules given as --grant (`shell_exec(npm test)`), for the policy's flag layer. */
  policyRules: string[];
}

/** What the launch options are read from (the process, in production; fixed values in tests). */
export interface LaunchInputs {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  homeDir: string;
}

/**
 * The gate's own options out of an argv that also holds Electron's and Chromium's: `serve`'s
 * options (`--workspace DIR`, `--grant CAP`, …) are kept, everything else is left to them. A flag
 * that needs a value and has none is dropped rather than swallowing the next argument.
 */
export function gateArguments(argv: readonly string[]): string[] {
  const options = new Map((SERVE_SPEC.options ?? []).map((option) => [option.name, option.value !== undefined]));
  const kept: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) continue;
    const name = arg.slice(2).split('=')[0]!;
    const takesValue = options.get(name);
    if (takesValue === undefined) continue;
    if (!takesValue || arg.includes('=')) kept.push(arg);
    else if (argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) kept.push(arg, argv[++i]!);
  }
  return kept;
}

/**
 * The desktop's launch: the same options `toolgate serve` takes, from its command line and from
 * TOOLGATE_DESKTOP_ARGS (a JSON array, how `npm start` hands them through electron-vite), then
 * settings.json and the defaults. Home: TOOLGATE_HOME, else ~/.toolgate. A bad settings file or
 * option throws, naming the fix; nothing starts.
 */
export function resolveLaunchOptions(inputs: LaunchInputs): LaunchOptions {
  const home = resolve(inputs.cwd, inputs.env.TOOLGATE_HOME || join(inputs.homeDir, '.toolgate'));
  const handed = inputs.env.TOOLGATE_DESKTOP_ARGS ? (JSON.parse(inputs.env.TOOLGATE_DESKTOP_ARGS) as unknown) : [];
  const passed = Array.isArray(handed) ? handed.filter((arg): arg is string => typeof arg === 'string') : [];
  const args = parseCommandLine(SERVE_SPEC, gateArguments([...passed, ...inputs.argv]), 'serve');
  const { settings, report } = resolveLaunchSettings({ home, flags: settingsFromFlags(args, inputs.cwd), env: inputs.env, cwd: inputs.cwd });
  return { home, settings, report, policyRules: policyRulesFromFlags(args) };
}
