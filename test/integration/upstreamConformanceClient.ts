/**
 * The client the MCP conformance suite's client scenarios run (`conformance client --command
 * "node <this, built>"`): the gate's own upstream connection (createUpstreamConnection, its
 * negotiation, list vetting and call path), pointed at the scenario's server as a Streamable HTTP
 * upstream. It starts the connection, then calls each tool the scenario's server listed, the
 * refused ones too (the gate must answer those itself, never reaching the server), with the
 * arguments the scenario asks for. Exits 0 when the connection started, 1 when it did not.
 * Built with Vite's SSR build by upstreamClientConformance.test.ts; never imported by the product.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createUpstreamConnection } from '../../main/upstream/upstreamConnection';
import type { UpstreamConnection } from '../../main/upstream/types';
import { WAIT_MS } from '../fixtures/processes';

/** What MCP_CONFORMANCE_CONTEXT may hold: the calls a scenario wants made, with their arguments. */
interface ScenarioContext {
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
}

/** A scenario's server answers at once: the deadlines only run out when something is wrong, on a busy machine too. */
const callOptions = { timeoutMs: WAIT_MS, maxResultBytes: 1024 * 1024 };

/** The arguments for one tool: from the scenario's context, else what the scenario's description asks, else none. */
function argumentsFor(tool: string, connection: UpstreamConnection, context: ScenarioContext): Record<string, unknown> {
  const asked = context.toolCalls?.find((call) => call.name === tool);
  if (asked) return asked.arguments;
  if (tool === 'add_numbers') return { a: 2, b: 3 };
  // json-schema-2020-12-preservation: hand back the focal tool's inputSchema as the gate registered it.
  if (tool === 'json_schema_echo') return { schema: connection.tools().find((t) => t.name === 'json_schema_2020_12_tool')?.inputSchema ?? {} };
  if (tool === 'valid_tool') return { region: 'us-west1' };
  return {};
}

async function main(): Promise<number> {
  const url = process.argv[2];
  if (!url) throw new Error('usage: upstreamConformanceClient <server url>');
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? '{}') as ScenarioContext;
  const home = mkdtempSync(join(tmpdir(), 'clientconf-home-'));
  const connection = createUpstreamConnection(
    { name: 'conformance', transport: 'http', url, headers: {} },
    { home, resolveSecret: async () => undefined, sandbox: { kind: 'none', reason: 'an http upstream runs no process' }, limits: { startTimeoutMs: WAIT_MS } },
  );
  try {
    try {
      await connection.start();
    } catch (error) {
      console.log(`start failed: ${error instanceof Error ? error.message : String(error)}`);
      return 1;
    }
    const state = connection.state();
    console.log(`started: protocol ${state.protocol}, tools ${connection.tools().map((t) => t.name).join(', ')}; refused ${JSON.stringify(state.refused)}`);
    // The context's calls first, in its order (a scenario may check them in order), then every other listed tool.
    const names = [...(context.toolCalls ?? []).map((call) => call.name), ...connection.tools().map((t) => t.name), ...state.refused.map((t) => t.name)];
    for (const tool of new Set(names)) {
      const outcome = await connection.call(tool, argumentsFor(tool, connection, context), callOptions);
      console.log(`${tool}: ${JSON.stringify(outcome)}`);
    }
    return 0;
  } finally {
    await connection.close();
    rmSync(home, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
