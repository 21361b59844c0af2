import { join, resolve } from 'node:path';

/** Where the desktop gate keeps its state and which folder its tools may touch. */
export interface LaunchOptions {
  /** State folder: audit database, token, policy files. */
  home: string;
  /** Workspace root the tools are confined to. */
  workspace: string;
}

/** What the launch options are read from (the process, in production; fixed values in tests). */
export interface LaunchInputs {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  cwd: string;
  homeDir: string;
}

/** The value of `--name VALUE` or `--name=VALUE`, the last one winning. */
function flagValue(argv: readonly string[], name: string): string | undefined {
  let value: string | undefined;
  argv.forEach((arg, index) => {
    if (arg === name && index + 1 < argv.length) value = argv[index + 1];
    else if (arg.startsWith(`${name}=`)) value = arg.slice(name.length + 1);
  });
  return value || undefined;
}

/**
 * Workspace: `--workspace DIR`, else TOOLGATE_WORKSPACE, else the working directory.
 * Home: TOOLGATE_HOME, else ~/.toolgate. Relative paths are taken from the working directory.
 */
export function resolveLaunchOptions(inputs: LaunchInputs): LaunchOptions {
  const workspace = flagValue(inputs.argv, '--workspace') ?? (inputs.env.TOOLGATE_WORKSPACE || inputs.cwd);
  const home = inputs.env.TOOLGATE_HOME || join(inputs.homeDir, '.toolgate');
  return { home: resolve(inputs.cwd, home), workspace: resolve(inputs.cwd, workspace) };
}
