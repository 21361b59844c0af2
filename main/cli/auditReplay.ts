/**
 * `toolgate audit replay CALL_ID [--json]`: asks the running gate to re-run a recorded call and
 * compare the response hash. A replay needs the gate's tool processes, its sandbox and its policy,
 * and must be audited in the gate's own log, so the CLI does not run one itself: it asks the gate
 * through the console bridge, as the console's Replay button does, with the console token from the
 * state folder (the person's credential; an agent's MCP token cannot ask for it).
 */
import type { BridgeReply } from '../../shared/contract';
import { ReplayReportSchema, type ReplayReport } from '../../shared/explorer';
import type { GateAddress } from '../state/stateFolder';
import { UsageError, flag, type ParsedArgs } from './argv';
import type { Io } from './commands';
import { bridgeRequest, consoleOfRunningGate } from './gateBridge';

/** Exit codes: the same response, a different one, not replayable or bad input. */
const EXIT = { same: 0, different: 1, 'not-replayable': 2 } as const;

/**
 * Sends one replayCall over the console bridge and resolves with its reply. The replay is judged
 * by the policy like any call: when it waits for a person, `onWaiting` is told.
 */
function askGate(address: GateAddress, consoleToken: string, callId: string, onWaiting: () => void): Promise<BridgeReply<unknown>> {
  return bridgeRequest(address, consoleToken, 'replayCall', { callId }, (events) => {
    type Update = { source?: string; status?: string } | undefined;
    if (events.some((item) => item.event === 'callUpdated' && (item.payload as Update)?.source === 'console' && (item.payload as Update)?.status === 'awaiting-approval')) onWaiting();
  });
}

function printReport(report: ReplayReport, io: Io): void {
  const lines = [`${report.verdict}: ${report.reason}`];
  if (report.recordedVersion || report.currentVersion) lines.push(`  version   recorded ${report.recordedVersion ?? '(unknown)'}, now ${report.currentVersion ?? '(not registered)'}`);
  if (report.recordedHash) lines.push(`  recorded  ${report.recordedHash}`);
  if (report.replayedHash) lines.push(`  replayed  ${report.replayedHash}`);
  if (report.replayCallId) lines.push(`  replay    call ${report.replayCallId} (in the audit log, replayOf ${report.callId})`);
  (report.verdict === 'not-replayable' ? io.err : io.out)(`${lines.join('\n')}\n`);
}

/** Runs `audit replay`; exit 0 same, 1 different, 2 not replayable, bad input or no gate. */
export async function auditReplayCommand(args: ParsedArgs, io: Io): Promise<number> {
  const [, callId, ...extra] = args.positionals;
  if (!callId) throw new UsageError('audit replay needs a call id: toolgate audit replay CALL_ID (copy one from the explorer or `toolgate audit list`)');
  if (extra.length > 0) throw new UsageError(`audit replay takes one call id, not ${extra.length + 1}`);
  const gate = consoleOfRunningGate(io.home, "a replay re-runs the tool in the gate's tool processes");
  if ('problem' in gate) {
    io.err(`${gate.problem}\n`);
    return 2;
  }
  const { address, consoleToken } = gate;
  let told = false;
  const reply = await askGate(address, consoleToken, callId, () => {
    if (told) return;
    told = true;
    io.err(`the replay waits for a person's approval, as the policy asks for this tool: answer it in the console at ${address.consoleUrl} (\`toolgate console\` prints the link with your token)\n`);
  });
  if (!reply.ok) {
    io.err(`${reply.error.code}: ${reply.error.message}\n`);
    return 2;
  }
  const report = ReplayReportSchema.parse(reply.value);
  if (flag(args, 'json')) io.out(`${JSON.stringify(report, null, 2)}\n`);
  else printReport(report, io);
  return EXIT[report.verdict];
}
