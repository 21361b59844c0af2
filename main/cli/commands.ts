import { inertText } from '../../shared/inertText';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { AuditStore } from '../audit/auditStore';
import { auditVerifyCommand } from './auditVerify';
import { GateConnection, LONG_CALL, openGateSession } from '../mcp/gateClient';
import { RAW_ARGUMENTS_META } from '../mcp/gateMcpServer';
import { runStdioBridge } from '../mcp/stdioBridge';
import { ToolRegistry } from '../registry/registry';
import { exportToolSchemas, TOOL_SCHEMA_FORMATS, type ToolSchemaFormat } from '../registry/schemaFormats';
import { statePaths } from '../state/paths';
import { BUILTIN_TOOLS } from '../tools/builtinTools';
import { loadToolModule } from '../tools/loadToolModule';
import { UsageError, flag, intFlag, onlyFlags, parseArgs } from './argv';

/** What a command prints and its exit code (0 ok, 1 the thing checked failed, 2 usage or setup). */
export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  home: string;
}

/** `toolgate tools [--format mcp|openai|anthropic] [--tools MODULE]`: the tool schemas as JSON. */
export async function toolsCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv);
  onlyFlags(args, ['format', 'tools']);
  const format = (flag(args, 'format') ?? 'mcp') as ToolSchemaFormat;
  if (!TOOL_SCHEMA_FORMATS.includes(format)) {
    throw new UsageError(`--format takes ${TOOL_SCHEMA_FORMATS.join(', ')}, not ${JSON.stringify(format)}`);
  }
  const registry = new ToolRegistry();
  for (const tool of BUILTIN_TOOLS) registry.register(tool);
  for (const module of args.flags.get('tools') ?? []) {
    for (const tool of await loadToolModule(resolve(module))) registry.register(tool, resolve(module));
  }
  io.out(`${JSON.stringify(exportToolSchemas(registry.list(), format), null, 2)}\n`);
  return 0;
}

function openAudit(io: Io): AuditStore | undefined {
  const paths = statePaths(io.home);
  if (!existsSync(paths.audit)) {
    io.err(`no audit log at ${paths.audit}: nothing has run with TOOLGATE_HOME=${io.home} yet\n`);
    return undefined;
  }
  return new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly: true });
}

/** `toolgate audit verify|list`: checks the chain, or prints the latest records. */
export async function auditCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv, ['json', 'accept-missing-anchor']);
  const [sub] = args.positionals;
  if (sub !== 'verify' && sub !== 'list') throw new UsageError('audit takes `verify` or `list`');
  onlyFlags(args, sub === 'list' ? ['limit', 'json'] : ['json', 'accept-missing-anchor']);
  if (sub === 'verify') return auditVerifyCommand(args, io);
  const store = openAudit(io);
  if (!store) return 2;
  try {
    const records = store.list({ limit: intFlag(args, 'limit', 1, 100_000) ?? 20 }).reverse();
    if (flag(args, 'json')) io.out(`${JSON.stringify(records, null, 2)}\n`);
    else {
      for (const record of records) {
        io.out(`${String(record.seq).padStart(6)}  ${record.time}  ${record.kind.padEnd(18)} ${record.callId}  ${JSON.stringify(record.payload).slice(0, 120)}\n`);
      }
    }
    return 0;
  } finally {
    store.close();
  }
}

/** `toolgate call TOOL JSON`: one call through the running gate, exactly as an agent makes it. */
export async function callCommand(argv: string[], io: Io): Promise<number> {
  const args = parseArgs(argv);
  onlyFlags(args, []);
  const [tool, json = '{}'] = args.positionals;
  if (!tool) throw new UsageError('call needs a tool name: toolgate call TOOL \'{"arg": "value"}\'');
  const session = await openGateSession(io.home, 'toolgate-cli');
  try {
    const result = await session.client.callTool({ name: tool, arguments: {}, _meta: { [RAW_ARGUMENTS_META]: json } }, undefined, LONG_CALL);
    // What a tool returned reaches a terminal here: its escape sequences are shown, not obeyed.
    const text = inertText((result.content as Array<{ type: string; text?: string }>).map((item) => item.text ?? '').join('\n'));
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

/** `toolgate mcp`: the stdio bridge to the running gate. */
export async function mcpCommand(argv: string[], io: Io): Promise<number> {
  onlyFlags(parseArgs(argv), []);
  await runStdioBridge(await GateConnection.open(io.home, 'toolgate-stdio-bridge'));
  return 0;
}
