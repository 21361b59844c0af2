import { terminalText } from '../../shared/inertText';
import { resolveHome, toolgateVersion } from '../state/paths';
import { UsageError } from './argv';
import { helpText, subcommandOf, usageText, wantsHelp } from './commandSpec';
import { COMMAND_SPECS, commandSpec } from './commandSpecs';
import type { Io } from './commands';
import { requestStop, stopRequested } from './stopRequest';

type Command = (argv: string[], io: Io) => Promise<number>;

/**
 * Each command's code, loaded when it runs: `--help`, `hook claude-code` or `secret list` start
 * without the gate, the audit store, the MCP SDK or the policy engine that other commands need.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  serve: async () => (await import('./serveCommand')).serveCommand,
  console: async () => (await import('./commands')).consoleCommand,
  mcp: async () => (await import('./commands')).mcpCommand,
  call: async () => (await import('./commands')).callCommand,
  tools: async () => (await import('./toolsCommand')).toolsCommand,
  audit: async () => (await import('./auditCommand')).auditCommand,
  effects: async () => (await import('./undoCommands')).effectsCommand,
  undo: async () => (await import('./undoCommands')).undoCommand,
  rewind: async () => (await import('./undoCommands')).rewindCommand,
  policy: async () => (await import('./policyCommands')).policyCommand,
  secret: async () => (await import('./secretCommands')).secretCommand,
  servers: async () => (await import('./serverCommands')).serversCommand,
  team: async () => (await import('../team/teamCommands')).teamCommand,
  hook: async () => {
    const { hookCommand } = await import('../hooks/hookCommand');
    return (argv, io) => hookCommand(argv, io);
  },
};

/** How often serve checks that the process that started it is still there. */
const PARENT_POLL_MS = 1000;

/**
 * Makes a long-running command stop when whoever started it goes away: a closed terminal (SIGHUP),
 * or a parent that exits without passing its signal on (`npx toolgate serve` interrupted), which
 * would leave the gate running as an orphan. Both ask the stop Ctrl+C asks. Returns the function
 * that stops watching.
 */
function stopWithParent(io: Io): () => void {
  const originalParent = process.ppid;
  let timer: NodeJS.Timeout | undefined;
  let asked = false;
  function stop(why: string): void {
    // A terminal that closes may hang up more than once: the gate stops once.
    if (asked) return;
    asked = true;
    clearInterval(timer);
    io.err(`toolgate serve: ${why}, so the gate stops with it; to keep a gate running on its own (nohup, setsid, a script or a service), start it with --keep-running\n`);
    requestStop();
  }
  function hangUp(): void {
    stop('the terminal it ran in closed (SIGHUP)');
  }
  process.on('SIGHUP', hangUp);
  // An orphan is re-parented (to init or a subreaper), so its parent pid changes; Windows has no such thing.
  if (process.platform !== 'win32') {
    timer = setInterval(() => {
      if (process.ppid !== originalParent) stop(`the process that started it (pid ${originalParent}) has exited`);
    }, PARENT_POLL_MS);
    timer.unref();
  }
  // The listener outlives the command: a hang-up while the process ends finds it, not the default
  // that would report the gate killed by a signal after it closed cleanly.
  return () => {
    asked = true;
    clearInterval(timer);
  };
}

/** `serve --keep-running`: a closed terminal's SIGHUP is ignored for the process's life, as nohup would have it, and the parent is not watched. */
function ignoreHangUps(): void {
  process.on('SIGHUP', () => {});
}

/** The known word nearest to a mistyped one, if one is close; loaded only on this error path. */
async function nearestOf(word: string, names: readonly string[]): Promise<string | undefined> {
  const { nearestName } = await import('../../shared/nearestName');
  return nearestName(word, names);
}

/** The process's own output: what the CLI prints on stdout and stderr, and the home it works in. */
export function processIo(): Io {
  // A reader that went away (`toolgate serve | head -3`, `audit list | less` quit early) closes the
  // pipe: what is printed after that is dropped, and the command goes on (a gate keeps serving).
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE') throw error;
    });
  }
  return {
    // Audit records, tool results, policy reasons and agent names reach a terminal through here: shown, never obeyed.
    out: (text) => process.stdout.write(terminalText(text)),
    err: (text) => process.stderr.write(terminalText(text)),
    home: resolveHome(),
  };
}

/** Runs the CLI with its output going to `io` (the process's own by default); returns the exit code. */
export async function main(argv: string[], io: Io = processIo()): Promise<number> {
  const [name, ...rest] = argv;
  const usage = usageText(COMMAND_SPECS);
  if (!name || name === '--help' || name === '-h') {
    io.out(usage);
    return name ? 0 : 2;
  }
  if (name === '--version' || name === 'version') {
    io.out(`${toolgateVersion()}\n`);
    return 0;
  }
  // `toolgate help call` is `toolgate call --help`.
  const helpFor = name === 'help' ? rest : undefined;
  const commandName = helpFor ? helpFor[0] : name;
  if (commandName === undefined) {
    io.out(usage);
    return 0;
  }
  const loadCommand = COMMANDS[commandName];
  if (!loadCommand) {
    const near = await nearestOf(commandName, Object.keys(COMMANDS));
    io.err(`toolgate: unknown command ${JSON.stringify(commandName)}${near ? `; did you mean \`toolgate ${near}\`?` : ''}\n\n${usage}`);
    return 2;
  }
  const spec = commandSpec(commandName);
  const commandArgs = helpFor ? helpFor.slice(1) : rest;
  if (helpFor || wantsHelp(commandArgs)) {
    const sub = subcommandOf(spec, commandArgs);
    io.out(sub ? helpText(sub, `${commandName} ${sub.name}`) : helpText(spec, commandName));
    return 0;
  }
  // A command made of subcommands takes no word of its own: a mistyped one is named, not ignored.
  const first = commandArgs[0];
  if (spec.subcommands && spec.args === undefined && first !== undefined && !first.startsWith('-') && !spec.subcommands.some((sub) => sub.name === first)) {
    const names = spec.subcommands.map((sub) => sub.name);
    const near = await nearestOf(first, names);
    io.err(`toolgate ${commandName}: unknown subcommand ${JSON.stringify(first)}${near ? `; did you mean \`toolgate ${commandName} ${near}\`?` : ''} (it takes ${names.map((each) => `\`${each}\``).join(', ')}; see \`toolgate ${commandName} --help\`)\n`);
    return 2;
  }
  let unwatchParent: (() => void) | undefined;
  if (name === 'serve') {
    // A serving gate listens for its stop from before its code loads (stopRequest.ts says why).
    void stopRequested();
    if (rest.includes('--keep-running')) ignoreHangUps();
    else unwatchParent = stopWithParent(io);
  }
  try {
    const command = await loadCommand();
    return await command(rest, io);
  } catch (error) {
    // Loaded only to tell the gate's own errors from the rest, on this path alone.
    const { GateError } = await import('../../shared/errors');
    if (error instanceof UsageError) {
      // The help to read is the subcommand's own when one was named (`audit export --help`).
      const sub = subcommandOf(spec, commandArgs);
      const message = error.message.includes('--help`') ? error.message : `${error.message} (see \`toolgate ${sub ? `${name} ${sub.name}` : name} --help\`)`;
      io.err(`toolgate ${name}: ${message}\n`);
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
