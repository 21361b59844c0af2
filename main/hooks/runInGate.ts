import { GATE_NOT_RUNNING_MESSAGE, runningGateEndpoint } from '../state/runningGate';
import type { RunGrant } from './bashRun';
import { postToGate, type GateReply } from './gatePost';
import { CLAUDE_CODE_RUN_PATH, NOT_RUN_EXIT_CODE, readRunReply } from './hookWire';

/** Where `toolgate hook run` writes the command's output. */
export interface RunOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** How long `toolgate hook run` waits without a byte from the gate: past the longest command and its kill. */
const RUN_WAIT_MS = 10 * 60_000;

/**
 * `toolgate hook run`: asks the running gate to run the Bash call it allowed under this grant, in its
 * sandbox, and hands on the command's stdout, stderr and exit status. Whatever keeps the command
 * from running (no gate, an unknown, spent or changed grant) is said on stderr, with NOT_RUN_EXIT_CODE:
 * nothing runs on the host, ever.
 */
export async function runInGate(grant: RunGrant, home: string, output: RunOutput): Promise<number> {
  const notRun = (why: string): number => {
    output.stderr(`toolgate: the approved command did not run: ${why}\n`);
    return NOT_RUN_EXIT_CODE;
  };
  const gate = runningGateEndpoint(home);
  if (!gate) return notRun(`${GATE_NOT_RUNNING_MESSAGE}, then ask Claude Code to run the command again`);
  let reply: GateReply;
  try {
    reply = await postToGate(gate, CLAUDE_CODE_RUN_PATH, JSON.stringify(grant), RUN_WAIT_MS);
  } catch (error) {
    // Sent, the command may have started before the gate went away: its outcome is not known here.
    output.stderr(`toolgate: the gate could not be reached or went away (${(error as Error).message}); if the command had started, it was stopped with the gate, and nothing ran outside it\n`);
    return NOT_RUN_EXIT_CODE;
  }
  if (!('value' in reply)) return notRun(`the gate refused the request (${reply.refused}: ${reply.message})`);
  const outcome = readRunReply(reply.value);
  if (!outcome) return notRun('the gate answered with something that is not the outcome of a run');
  if (!outcome.ran) return notRun(outcome.message);
  output.stdout(outcome.stdout);
  output.stderr(outcome.stderr);
  return outcome.exitCode;
}
