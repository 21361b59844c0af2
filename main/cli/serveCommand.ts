import { resolve } from 'node:path';
import { CapabilitySchema } from '../../shared/manifest';
import { DEFAULT_GRANTS } from '../gate/createGate';
import { DEFAULT_PORT, startGate } from '../gate/startGate';
import type { SandboxMode } from '../hosts/sandbox';
import { statePaths, toolgateVersion } from '../state/paths';
import { UsageError, flag, intFlag } from './argv';
import { parseCommandLine } from './commandSpec';
import { SERVE_SPEC } from './commandSpecs';
import type { Io } from './commands';

function isSandboxMode(mode: string): mode is SandboxMode {
  return mode === 'auto' || mode === 'require' || mode === 'off';
}

/** `toolgate serve`: the gate in plain Node, the console in a browser, until Ctrl+C. */
export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const args = parseCommandLine(SERVE_SPEC, argv, 'serve');
  const sandbox = flag(args, 'sandbox') ?? 'auto';
  if (!isSandboxMode(sandbox)) throw new UsageError(`--sandbox ${sandbox}: say auto (bubblewrap when it works), require (refuse to start without it) or off`);
  const grants = (args.flags.get('grant') ?? []).map((grant) => {
    const parsed = CapabilitySchema.safeParse(grant);
    if (!parsed.success) throw new UsageError(`--grant ${grant}: ${parsed.error.issues[0]?.message}`);
    return parsed.data;
  });
  const running = await startGate({
    home: io.home,
    workspace: resolve(flag(args, 'workspace') ?? process.cwd()),
    port: intFlag(args, 'port', 0, 65_535) ?? DEFAULT_PORT,
    approvalTimeoutMs: (intFlag(args, 'approval-timeout', 1, 86_400) ?? 300) * 1000,
    toolModules: (args.flags.get('tools') ?? []).map((module) => resolve(module)),
    grants: grants.length > 0 ? [...DEFAULT_GRANTS, ...grants] : undefined,
    readOnly: flag(args, 'read-only') === 'true',
    poolSize: intFlag(args, 'pool', 1, 64),
    // Prompts waiting for a person, in all and per agent session; past them a call gets EQUOTA at once.
    maxPending: intFlag(args, 'max-pending', 1, 100_000),
    maxPendingPerSession: intFlag(args, 'max-pending-per-agent', 1, 100_000),
    sandbox,
    // The environment variables tools may receive as $ENV.NAME; no other variable ever is.
    secretEnv: args.flags.get('secret-env') ?? [],
  });
  io.out(
    [
      `Toolgate ${toolgateVersion()} is running`,
      `  workspace  ${running.gate.workspace}`,
      `  sandbox    ${running.gate.sandbox.kind === 'bubblewrap' ? `bubblewrap (${running.gate.sandbox.version})` : `none: ${running.gate.sandbox.reason}`}`,
      `  console    ${running.consoleUrl}`,
      `  MCP        ${running.mcpUrl}`,
      // The console URL carries the console token: it answers prompts, so it never goes into an agent's config.
      `  tokens     agents (MCP): ${statePaths(io.home).token}; console (yours alone, never an agent's): ${statePaths(io.home).consoleToken}`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  // Ctrl+C in a terminal reaches every process of the job, and `npm start` passes it on again: the
  // first signal stops the gate; the ones after it must not kill it half-closed (gate.json left behind).
  let stopping = false;
  await new Promise<void>((resolveStop) => {
    const onSignal = () => {
      if (stopping) return;
      stopping = true;
      resolveStop();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  io.out('Stopping: pending prompts are denied, tool processes end.\n');
  await running.close();
  return 0;
}
