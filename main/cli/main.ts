import { GateError } from '../../shared/errors';
import { resolveHome, toolgateVersion } from '../state/paths';
import { UsageError } from './argv';
import { auditCommand, callCommand, mcpCommand, toolsCommand, type Io } from './commands';
import { secretCommand } from './secretCommands';
import { serveCommand } from './serveCommand';

const USAGE = `Usage: toolgate <command>

  serve --workspace DIR [--port N] [--approval-timeout SEC] [--tools MODULE] [--grant CAP] [--read-only]
                          [--sandbox auto|require|off] [--pool N] [--secret-env NAME]
                          run the gate and its console (http://127.0.0.1:7749 by default)
  mcp                     stdio MCP server that forwards to the running gate (for clients that launch a command)
  call TOOL [JSON]        call a tool through the running gate, like an agent
  tools [--format mcp|openai|anthropic]
                          print the tool schemas
  audit verify [--json]   check the audit log's hash chain and head anchor (exit 1 says what is damaged);
                          also lists calls that have no end record
  audit verify --accept-missing-anchor
                          accept a log whose head anchor file is gone, as it is (recorded in the log)
  audit list [--limit N] [--json]
                          print the latest audit records
  secret set NAME         store a secret (value read from stdin) that tool arguments use as $ENV.NAME
  secret list             print the names of the stored secrets (never their values)
  secret remove NAME      delete a stored secret

State lives in $TOOLGATE_HOME (default ~/.toolgate).
`;

const COMMANDS: Record<string, (argv: string[], io: Io) => Promise<number>> = {
  serve: serveCommand,
  mcp: mcpCommand,
  call: callCommand,
  tools: toolsCommand,
  audit: auditCommand,
  secret: secretCommand,
};

/** How often serve checks that the process that started it is still there. */
const PARENT_POLL_MS = 1000;

/**
 * Makes a long-running command stop when whoever started it goes away: a closed terminal (SIGHUP),
 * or a parent that exits without passing its signal on (`npx toolgate serve` interrupted), which
 * would leave the gate running as an orphan. Both arrive as SIGINT, which the command already
 * handles as Ctrl+C. Returns the function that stops watching.
 */
function stopWithParent(): () => void {
  const originalParent = process.ppid;
  let timer: NodeJS.Timeout | undefined;
  const unwatch = () => {
    clearInterval(timer);
    process.off('SIGHUP', stop);
  };
  function stop(): void {
    unwatch();
    process.kill(process.pid, 'SIGINT');
  }
  process.once('SIGHUP', stop);
  // An orphan is re-parented (to init or a subreaper), so its parent pid changes; Windows has no such thing.
  if (process.platform !== 'win32') {
    timer = setInterval(() => {
      if (process.ppid !== originalParent) stop();
    }, PARENT_POLL_MS);
    timer.unref();
  }
  return unwatch;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[]): Promise<number> {
  const io: Io = {
    out: (text) => process.stdout.write(text),
    err: (text) => process.stderr.write(text),
    home: resolveHome(),
  };
  const [name, ...rest] = argv;
  if (!name || name === 'help' || name === '--help' || name === '-h') {
    io.out(USAGE);
    return name ? 0 : 2;
  }
  if (name === '--version' || name === 'version') {
    io.out(`${toolgateVersion()}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`toolgate: unknown command ${JSON.stringify(name)}\n\n${USAGE}`);
    return 2;
  }
  const unwatchParent = name === 'serve' ? stopWithParent() : undefined;
  try {
    return await command(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`toolgate ${name}: ${error.message}\n\n${USAGE}`);
      return 2;
    }
    if (error instanceof GateError) {
      io.err(`toolgate ${name}: ${error.message}\n`);
      return 2;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') {
      io.err(`toolgate ${name}: that port is already in use; pass --port N (or --port 0 for any free port)\n`);
      return 2;
    }
    io.err(`toolgate ${name}: ${(error as Error).message}\n`);
    return 2;
  } finally {
    unwatchParent?.();
  }
}
