import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute } from 'node:path';
import { readGateAddress } from '../state/stateFolder';
import { bridgeRequest } from './gateBridge';
import { createInterface } from 'node:readline/promises';
import { statePaths } from '../state/paths';
import type { UpstreamOverview, UpstreamServerConfig } from '../../shared/upstream';
import { clientConfigPath } from '../upstream/clientConfigs';
import { undoRewrite, type UndoReport } from '../upstream/clientRewrite';
import { importServers, type ImportReport } from '../upstream/serverImport';
import { readServersFile, serversFilePath, type ServersFileContents } from '../upstream/serversFile';
import type { UpstreamState } from '../upstream/types';
import { UsageError, flag, type ParsedArgs } from './argv';
import { parseCommandLine, subcommandOf } from './commandSpec';
import { commandSpec } from './commandSpecs';
import type { Io } from './commands';

/** One server as `servers list --json` prints it: env and header values never, only their names. */
function serverSummary(server: UpstreamServerConfig, state: UpstreamState | undefined) {
  const live = state ? { state: { status: state.status, protocol: state.protocol, detail: state.detail, restarts: state.restarts, tools: state.tools, refusedTools: state.refused } } : {};
  if (server.transport === 'http') return { name: server.name, transport: server.transport, url: server.url, headers: Object.keys(server.headers), ...live };
  const { name, transport, command, args, env, cwd, sandbox } = server;
  return { name, transport, command, args, env: Object.keys(env), ...(cwd ? { cwd } : {}), sandbox, ...live };
}

/** `servers list --json`: the file, each server (with its live state when given), the disabled and the refused. */
export function serverListJson(file: string, contents: ServersFileContents, states?: UpstreamState[]) {
  const stateOf = (name: string) => states?.find((state) => state.name === name);
  return { file, servers: contents.servers.map((server) => serverSummary(server, stateOf(server.name))), disabled: contents.disabled, refused: contents.refused };
}

/** What a stdio server may reach in its sandbox, in a few words. */
function sandboxText({ sandbox }: Extract<UpstreamServerConfig, { transport: 'stdio' }>): string {
  const writes = sandbox.writable.length > 0 ? `writes ${sandbox.writable.join(', ')}` : 'writes nothing';
  return `sandbox: network ${sandbox.network ? 'on' : 'off'}, ${writes}`;
}

/** A running gate's word on one server: status, tools, why it failed. */
function stateText(state: UpstreamState): string {
  const tools = state.status === 'ready' ? `, ${state.tools} tools${state.refused.length > 0 ? ` (${state.refused.length} refused)` : ''}` : '';
  const protocol = state.protocol ? `, MCP ${state.protocol}` : '';
  return `[${state.status}${tools}${protocol}${state.detail ? `: ${state.detail}` : ''}]`;
}

/**
 * The text `servers list` prints: a line per server (transport, command and args or URL, its sandbox),
 * the disabled ones, then each refused entry with its field and what to do. `states`, from a running
 * gate, adds where each server stands.
 */
export function formatServerList(file: string, contents: ServersFileContents, states?: UpstreamState[]): string {
  const { servers, disabled, refused } = contents;
  if (servers.length + disabled.length + refused.length === 0) {
    return `no servers in ${file}: add one, or copy a client's with \`toolgate servers import --from claude-desktop|claude-code|cursor\`\n`;
  }
  const width = Math.max(...[...servers.map((server) => server.name), ...disabled].map((name) => name.length), 4);
  const lines = [`${file}:`];
  for (const server of servers) {
    const reach = server.transport === 'stdio' ? `${[server.command, ...server.args].join(' ')}  (${sandboxText(server)})` : server.url;
    const state = states?.find((candidate) => candidate.name === server.name);
    lines.push(`  ${server.name.padEnd(width)}  ${server.transport.padEnd(5)}  ${reach}${state ? `  ${stateText(state)}` : ''}`);
  }
  for (const name of disabled) lines.push(`  ${name.padEnd(width)}  disabled`);
  if (refused.length > 0) {
    lines.push('', `Refused (${refused.length}; the other servers still start):`);
    for (const entry of refused) lines.push(`  ${entry.name}${entry.field ? ` ${entry.field}` : ''}: ${entry.message}`);
  }
  return `${lines.join('\n')}\n`;
}

/** What an import did, as lines: added, replaced, unchanged, refused and why, dropped fields, the rewrite. */
function formatImportReport(report: ImportReport, from: string): string {
  const lines = [`read ${report.source}`];
  const list = (label: string, names: string[]) => names.length > 0 && lines.push(`  ${label}: ${names.join(', ')}`);
  list('added', report.added);
  list('replaced', report.replaced);
  list('already in servers.json', report.unchanged);
  for (const name of report.bridges) lines.push(`  skipped ${name}: it is Toolgate's own bridge`);
  for (const { name, field, message } of report.refused) lines.push(`  refused ${name}${field ? ` ${field}` : ''}: ${message}`);
  for (const { name, fields } of report.dropped) lines.push(`  ${name}: dropped ${fields.join(', ')} (the client's own settings; the gate's review and limits apply instead)`);
  for (const { name, field, message } of report.notes) lines.push(`  ${name} ${field}: ${message}`);
  if (report.rewrite) {
    lines.push(
      `rewrote ${report.rewrite.file}: its mcpServers is now one "toolgate" entry, so its agent reaches these servers only through the gate`,
      `  backup: ${report.rewrite.backup}`,
      `  undo with: toolgate servers undo --from ${from}`,
    );
  }
  if (report.added.length + report.replaced.length > 0) {
    lines.push('Nothing starts unasked: approve each launch and trust its tools in the console\'s Tools view, or with `toolgate servers review NAME`; `toolgate servers list` shows them.');
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What a person must know about an imported stdio server's sandbox: it starts with no network and
 * writes nothing, so a server that names folders, or starts through npx, needs its `sandbox` set.
 */
function sandboxHint(server: UpstreamServerConfig): string[] {
  if (server.transport !== 'stdio' || server.sandbox.network || server.sandbox.writable.length > 0) return [];
  const folders = server.args.filter((arg) => isAbsolute(arg) && existsSync(arg) && statSync(arg).isDirectory());
  const lines = [`${server.name} runs in its sandbox with no network and writes nothing; if it needs more, say so with \`toolgate servers sandbox ${server.name}\` (--writable DIR, --network on).`];
  if (folders.length > 0) lines.push(`  it names ${folders.join(', ')}: make writable the folders it should change`);
  if (/(^|\/)(npx|uvx|bunx|pnpm|yarn)$/.test(server.command)) {
    lines.push(`  it starts through ${basename(server.command)}, which downloads the server: give it --network on and its cache (e.g. ~/.npm) as --writable, or install the server and run its file`);
  }
  return [`${lines.join('\n')}\n`];
}

function formatUndoReport({ record, outcome }: UndoReport): string {
  if (outcome === 'unchanged') return `${record.file} is as it was before the rewrite; nothing to restore (the record is cleared)\n`;
  if (outcome === 'servers-restored') return `put back the mcpServers of ${record.file} from ${record.backup}, keeping your other changes; the backup stays\n`;
  return `restored ${record.file} as it was before ${record.rewrittenAt}\n`;
}

/** No words after the subcommand: every input of these commands is an option. */
function noPositionals(args: ParsedArgs, sub: string): void {
  if (args.positionals.length > 1) throw new UsageError(`servers ${sub} takes options only, not ${JSON.stringify(args.positionals[1])}`);
}

/** `toolgate servers list|import|review|sandbox|undo`: the servers file, imports from clients, reviews, sandboxes, and undoing a client's rewrite. */
export async function serversCommand(argv: string[], io: Io): Promise<number> {
  const sub = subcommandOf(commandSpec('servers'), argv);
  if (!sub) throw new UsageError('servers takes `list`, `import`, `review`, `sandbox` or `undo`');
  const args = parseCommandLine(sub, argv, `servers ${sub.name}`);
  if (sub.name === 'review') return serversReview(args, io);
  if (sub.name === 'sandbox') return serversSandbox(args, io);
  noPositionals(args, sub.name);
  if (sub.name === 'list') {
    const file = serversFilePath(io.home);
    const contents = readServersFile(io.home);
    const states = await runningStates(io.home);
    io.out(flag(args, 'json') ? `${JSON.stringify(serverListJson(file, contents, states), null, 2)}\n` : formatServerList(file, contents, states));
    return contents.refused.length > 0 ? 1 : 0;
  }
  const from = flag(args, 'from');
  const project = flag(args, 'project');
  if (sub.name === 'import') {
    if (!from) throw new UsageError('servers import needs --from claude-desktop, claude-code, cursor or a FILE');
    const report = importServers(io.home, clientConfigPath(from, { project }), { replace: flag(args, 'replace') !== undefined, rewrite: flag(args, 'rewrite') !== undefined });
    const fromWords = project ? `${from} --project ${project}` : from;
    const imported = new Set([...report.added, ...report.replaced]);
    const hints = readServersFile(io.home).servers.filter((server) => imported.has(server.name)).flatMap(sandboxHint);
    io.out(formatImportReport(report, fromWords) + hints.join(''));
    return report.refused.length > 0 ? 1 : 0;
  }
  if (project && !from) throw new UsageError('--project goes with --from claude-code or cursor');
  const file = from ? clientConfigPath(from, { project }).path : undefined;
  io.out(formatUndoReport(undoRewrite(io.home, { file, force: flag(args, 'force') !== undefined })));
  return 0;
}

/** `toolgate servers review NAME`: asks at the terminal when there is one. */
async function serversReview(args: ParsedArgs, io: Io): Promise<number> {
  const [, server, extra] = args.positionals;
  if (!server) throw new UsageError('servers review needs the NAME of a server in servers.json');
  if (extra !== undefined) throw new UsageError(`servers review takes one NAME, not also ${JSON.stringify(extra)}`);
  const tier = flag(args, 'tier');
  // A review starts the server (the upstream client, the sandbox, the secrets): loaded for it alone, not for `servers list`.
  const [{ reviewCommand }, { ChainSecretProvider, EnvironmentSecretProvider, FileSecretProvider }] = await Promise.all([import('../upstream/reviewCommand'), import('../secrets/secretProvider')]);
  return reviewCommand({
    home: io.home,
    server,
    yes: flag(args, 'yes') !== undefined,
    acceptFindings: flag(args, 'accept-findings') !== undefined,
    trustAll: flag(args, 'trust-all') !== undefined,
    ...(tier !== undefined ? { tier } : {}),
    secrets: new ChainSecretProvider([new FileSecretProvider(statePaths(io.home).secrets), new EnvironmentSecretProvider(process.env, [])]),
    out: io.out,
    ...(process.stdin.isTTY ? { ask: askAtTerminal } : {}),
  });
}

/** `toolgate servers sandbox NAME [--network on|off] [--writable DIR]… [--no-writable]…`: the changes, as the command line gives them. */
async function serversSandbox(args: ParsedArgs, io: Io): Promise<number> {
  const [, server, extra] = args.positionals;
  if (!server) throw new UsageError('servers sandbox needs the NAME of a stdio server in servers.json');
  if (extra !== undefined) throw new UsageError(`servers sandbox takes one NAME, not also ${JSON.stringify(extra)} (give each folder with its own --writable or --readable)`);
  const network = flag(args, 'network');
  if (network !== undefined && network !== 'on' && network !== 'off') throw new UsageError(`--network takes on or off, not ${JSON.stringify(network)}`);
  const all = (name: string) => args.flags.get(name) ?? [];
  const cleared = (name: string) => flag(args, `no-${name}`) !== undefined;
  const { sandboxCommand } = await import('../upstream/sandboxCommand');
  return sandboxCommand({
    home: io.home,
    server,
    changes: {
      ...(network !== undefined ? { network: network === 'on' } : {}),
      clear: { readable: cleared('readable'), writable: cleared('writable'), env: cleared('env') },
      add: { readable: all('readable'), writable: all('writable'), env: all('env') },
    },
    out: io.out,
  });
}

/** A yes/no question at the terminal; anything but y or yes is no. */
export async function askAtTerminal(question: string): Promise<boolean> {
  const lines = createInterface({ input: process.stdin, output: process.stdout });
  try {
    const answer = await lines.question(`${question} [y/N] `);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    lines.close();
  }
}

/** Where each server stands in the running gate, asked over its console bridge; undefined when no gate runs (or it cannot be asked). */
async function runningStates(home: string): Promise<UpstreamState[] | undefined> {
  const { consoleToken } = statePaths(home);
  let address;
  try {
    address = readGateAddress(home);
  } catch {
    return undefined;
  }
  if (!existsSync(consoleToken)) return undefined;
  const reply = await bridgeRequest(address, readFileSync(consoleToken, 'utf8').trim(), 'upstreamServers', {}).catch(() => undefined);
  if (!reply?.ok) return undefined;
  return (reply.value as UpstreamOverview).servers.map((server) => ({
    name: server.name,
    transport: server.transport,
    status: server.status,
    ...(server.protocol ? { protocol: server.protocol } : {}),
    ...(server.detail ? { detail: server.detail } : {}),
    restarts: server.restarts,
    tools: server.tools.length,
    refused: server.refused,
  }));
}
