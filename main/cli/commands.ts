import { terminalText } from '../../shared/inertText';
import { existsSync, readFileSync } from 'node:fs';
import { GATE_NOT_RUNNING_MESSAGE, GateConnection, LONG_CALL, openGateSession } from '../mcp/gateClient';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { GateError } from '../../shared/errors';
import { RAW_ARGUMENTS_META } from '../mcp/gateMcpServer';
import { AWAITING_APPROVAL_PROGRESS } from '../mcp/gateToolCall';
import { answerGateNotRunning, runStdioBridge } from '../mcp/stdioBridge';
import { statePaths } from '../state/paths';
import { readGateAddress } from '../state/stateFolder';
import { UsageError, flag } from './argv';
import { parseCommandLine } from './commandSpec';
import { commandSpec } from './commandSpecs';

/** What a command prints and its exit code (0 ok, 1 the thing checked failed, 2 usage or setup). */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  home: string;
}

/** `toolgate call TOOL JSON`: one call through the running gate, exactly as an agent makes it. */
export async function callCommand(argv: string[], io: Io): Promise<number> {
  const args = parseCommandLine(commandSpec('call'), argv, 'call');
  const [tool, json = '{}', ...extra] = args.positionals;
  if (!tool) throw new UsageError('call needs a tool name: toolgate call TOOL \'{"arg": "value"}\'');
  if (extra.length > 0) throw new UsageError(`call takes one JSON argument, not ${extra.length + 1}: quote the JSON, e.g. toolgate call ${tool} '{"arg": "value"}'`);
  const session = await openGateSession(io.home, 'toolgate-cli');
  const started = Date.now();
  let noticeAt: number | undefined;
  const notice = (text: string) => {
    noticeAt = Date.now();
    io.err(`toolgate call: ${tool} ${text} Ctrl+C cancels the call.\n`);
  };
  // The gate says the moment the call waits for a person: say where they answer. A call held long for
  // another reason (its turn, a slow tool) is said to be running, once it has been a while.
  const running = setTimeout(() => notice(`is still running in the gate (${Math.round(RUNNING_NOTICE_MS / 1000)} s).`), RUNNING_NOTICE_MS);
  // The gate's heartbeats keep the call open for as long as the gate holds it (a person may take
  // minutes); every so often the terminal is told it still waits.
  const onProgress = ({ message }: { message?: string }) => {
    if (message === AWAITING_APPROVAL_PROGRESS) {
      clearTimeout(running);
      const consoleUrl = readGateAddressQuietly(io.home)?.consoleUrl ?? 'the console';
      notice(`is waiting in the gate for a person's approval: answer it in the console at ${consoleUrl} (\`toolgate console\` prints the link with your token).`);
      return;
    }
    if (noticeAt === undefined || Date.now() - noticeAt < STILL_WAITING_NOTICE_MS) return;
    notice(`is still waiting in the gate (${Math.round((Date.now() - started) / 1000)} s).`);
  };
  try {
    let result: Awaited<ReturnType<typeof session.client.callTool>>;
    try {
      result = await session.client
        .callTool({ name: tool, arguments: {}, _meta: { [RAW_ARGUMENTS_META]: json } }, undefined, { ...LONG_CALL, onprogress: onProgress })
        .finally(() => clearTimeout(running));
    } catch (error) {
      // The gate went silent about a call it took: the call failed, exit 1. (A call the gate could not
      // take, no such tool, is a usage problem: exit 2, as for no gate at all.)
      if (!(error instanceof McpError) || error.code !== ErrorCode.RequestTimeout) throw error;
      io.err(`toolgate call: the gate sent nothing about the call for ${LONG_CALL.timeout / 1000} s, so it was given up (\`toolgate audit list\` shows how it ended)\n`);
      return 1;
    }
    // What a tool returned reaches a terminal here: its escape sequences are shown, not obeyed.
    const text = terminalText((result.content as Array<{ type: string; text?: string }>).map((item) => item.text ?? '').join('\n'));
    if (result.isError) {
      io.err(`${text}\n`);
      return 1;
    }
    io.out(`${result.structuredContent ? JSON.stringify(result.structuredContent, null, 2) : text}\n`);
    return 0;
  } finally {
    // Ends the session on the gate too, so one-off calls do not pile up there.
    await session.close();
  }
}

/** How long `toolgate call` waits for a result no person is asked about before it says the call still runs. */
const RUNNING_NOTICE_MS = 10_000;
/** How often, at most, `toolgate call` says again that the call still waits. */
const STILL_WAITING_NOTICE_MS = 30_000;

/** The running gate's address, or undefined when none runs (for a notice, never an error). */
function readGateAddressQuietly(home: string) {
  try {
    return readGateAddress(home);
  } catch {
    return undefined;
  }
}

/**
 * `toolgate mcp`: the stdio bridge to the running gate. With no gate running it still answers the
 * client's initialize, with an error saying to start the gate, and exits 1 when the client leaves.
 */
export async function mcpCommand(argv: string[], io: Io): Promise<number> {
  parseCommandLine(commandSpec('mcp'), argv, 'mcp');
  let connection: GateConnection;
  try {
    connection = await GateConnection.open(io.home, 'toolgate-stdio-bridge');
  } catch (error) {
    if (!(error instanceof GateError)) throw error;
    io.err(`toolgate mcp: ${GATE_NOT_RUNNING_MESSAGE}\n`);
    await answerGateNotRunning(GATE_NOT_RUNNING_MESSAGE);
    return 1;
  }
  await runStdioBridge(connection);
  return 0;
}

/** `toolgate console`: the running gate's console URL again, with the person's console token. */
export async function consoleCommand(argv: string[], io: Io): Promise<number> {
  const args = parseCommandLine(commandSpec('console'), argv, 'console');
  if (flag(args, 'team') === 'true') return (await import('../team/teamConsoleCommand')).teamConsoleCommand(args, io);
  const address = readGateAddress(io.home);
  const { consoleToken } = statePaths(io.home);
  if (!existsSync(consoleToken)) {
    io.err(`the gate at ${address.mcpUrl} serves no browser console (the desktop app answers prompts in its own window)\n`);
    return 2;
  }
  io.out(`${address.consoleUrl}#token=${readFileSync(consoleToken, 'utf8').trim()}\n`);
  return 0;
}
