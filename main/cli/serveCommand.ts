import { optimizeSooner } from '../gate/gateTiering';
import { startGate } from '../gate/startGate';
import { gateOptionsFrom, policyRulesFromFlags, resolveLaunchSettings, settingsFromFlags } from '../settings/launchSettings';
import { statePaths, toolgateVersion } from '../state/paths';
import { intFlag } from './argv';
import { parseCommandLine } from './commandSpec';
import { SERVE_SPEC } from './commandSpecs';
import type { Io } from './commands';
import type { UpstreamOverview } from '../../shared/upstream';
import { teamBannerLines } from '../team/teamBanner';
import { stopRequested } from './stopRequest';

/** `toolgate serve`: the gate in plain Node, the console in a browser, until Ctrl+C. */
export async function serveCommand(argv: string[], io: Io): Promise<number> {
  const args = parseCommandLine(SERVE_SPEC, argv, 'serve');
  // Flags over settings.json over the defaults; a bad settings file stops here, before anything starts.
  const { settings, report } = resolveLaunchSettings({ home: io.home, flags: settingsFromFlags(args, process.cwd()), env: process.env, cwd: process.cwd() });
  const options = gateOptionsFrom(settings);
  const running = await startGate({
    home: io.home,
    ...options,
    // Prompts waiting for a person, in all and per agent session; past them a call gets EQUOTA at once.
    maxPending: intFlag(args, 'max-pending', 1, 100_000),
    maxPendingPerSession: intFlag(args, 'max-pending-per-agent', 1, 100_000),
    settings: report,
    policyRules: policyRulesFromFlags(args),
  });
  optimizeSooner();
  const team = await teamBannerLines(running.gate.team);
  const servers = await serversLineOf(() => running.gate.backend.handlers.upstreamServers({}));
  io.out(
    [
      `Toolgate ${toolgateVersion()} is running`,
      `  workspace  ${running.gate.workspace}`,
      `  sandbox    ${running.gate.sandbox.kind === 'bubblewrap' ? `bubblewrap (${running.gate.sandbox.version})` : `none: ${running.gate.sandbox.reason}`}`,
      `  console    ${running.consoleUrl}`,
      `  MCP        ${running.mcpUrl}`,
      `  grants     ${options.grants!.join(', ')}${settings.readOnly ? ' (read-only: no tool that writes or spawns)' : ''}`,
      `  approvals  a prompt waits ${settings.approvalTimeoutSeconds} s for you, then the call is denied`,
      `  policy     ${settings.mode} mode; rules from ${[...Object.values(running.gate.policyEngine?.files ?? {})].join(', ')}`,
      `  audit      ${
        settings.checkpointDir
          ? `signed checkpoints in ${settings.checkpointDir} (every ${settings.checkpointEveryRecords} records or ${settings.checkpointIntervalSeconds} s)`
          : 'no signed checkpoints (choose a folder outside the state folder with --checkpoint-dir DIR)'
      }`,
      `  settings   ${report.fileExists ? report.file : `${report.file} (none; flags and defaults in force)`}`,
      ...servers,
      ...team,
      ...(settings.otlpEndpoint ? [`  otlp       each ended call is sent as a span to ${settings.otlpEndpoint} (no arguments or results)`] : []),
      // The console URL carries the console token: it answers prompts, so it never goes into an agent's config.
      `  tokens     agents (MCP): ${statePaths(io.home).token}; console (yours alone, never an agent's): ${statePaths(io.home).consoleToken}`,
      'Press Ctrl+C to stop.',
      '',
    ].join('\n'),
  );
  await stopRequested();
  io.out('Stopping: pending prompts are denied, tool processes end.\n');
  await running.close();
  return 0;
}

/** The banner's line on upstream servers: how many, and which wait for the person's approval of their launch. */
async function serversLineOf(overview: () => Promise<UpstreamOverview>): Promise<string[]> {
  const { file, servers, refused } = await overview();
  if (servers.length + refused.length === 0) return [];
  const waiting = servers.filter((server) => !server.launchApproved).map((server) => server.name);
  const parts = [`${servers.length} in ${file}`];
  if (waiting.length > 0) parts.push(`${waiting.join(', ')} ${waiting.length === 1 ? 'waits' : 'wait'} for you to approve ${waiting.length === 1 ? 'its' : 'their'} launch in the Tools view`);
  if (refused.length > 0) parts.push(`${refused.length} refused (toolgate servers list says why)`);
  return [`  servers    ${parts.join('; ')}`];
}
