/**
 * The official MCP conformance suite's client scenarios against the gate's upstream client: the
 * suite (0.2.0-alpha.12) starts each scenario's server and runs upstreamConformanceClient.ts (the
 * gate's createUpstreamConnection, built here with Vite's SSR build) against it as an http
 * upstream, once for the 2025-11-25 requirement set (a 2025 initialize session) and once for
 * 2026-07-28 (server/discover, stateless). Each check either must be SUCCESS or is named below as
 * not applicable, with the reason and the outcome that shows it still does not apply: a check that
 * starts to pass, or one a newer suite adds, fails this test until someone decides. Every
 * scenario's WireSchemaValid check (each message the gate sent is valid wire form) must pass.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { WAIT_MS } from '../fixtures/processes';

const SUITE_CLI = resolve('node_modules/@modelcontextprotocol/conformance-2026/dist/index.js');

/** One check of a scenario, as the suite writes it to checks.json. */
interface Check {
  id: string;
  name: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Why a check does not apply, and the outcome that shows it still does not. */
interface NotApplicable {
  reason: string;
  outcome: RegExp;
}

const OAUTH = {
  reason: "the gate's credentials for an upstream are headers filled from its secret store (`Authorization: Bearer $ENV.NAME`); it runs no OAuth flow, so no discovery, registration, token request or scope handling",
  outcome: /^FAILURE: /,
};
const NO_ELICITATION = "the gate declares no elicitation, sampling or roots capability: a server's questions are refused, never passed to the agent or the person (who approves calls in the console)";
const NO_INPUT_ROUND = { reason: `${NO_ELICITATION}; an input_required result asking for elicitation fails the call, so there is no retry to carry requestState`, outcome: /^FAILURE: $/ };
const NOT_DECLARED = { reason: 'the gate declares no client capabilities, so there is none to be malformed', outcome: /^SKIPPED: $/ };
const ONLY_TOOLS = { reason: "the gate takes only tools from its upstreams: it sends no resources or prompts requests", outcome: /^SKIPPED: Client did not send a / };
const NO_INITIALIZE = { reason: 'a 2026-07-28 client sends no initialize (the gate negotiates with server/discover)', outcome: /^SKIPPED: Client did not send a / };

/** By `scenario/check name`, or `scenario/*` for every check of a scenario but WireSchemaValid; `auth/*` covers every auth scenario. */
const NOT_APPLICABLE: Record<'2025-11-25' | '2026-07-28', Record<string, NotApplicable>> = {
  '2025-11-25': {
    'auth/*': OAUTH,
    'elicitation-sep1034-client-defaults/*': { reason: NO_ELICITATION, outcome: /^FAILURE: (Elicitation failed: MCP error -32601: Method not found)?$/ },
  },
  '2026-07-28': {
    'auth/*': OAUTH,
    'auth/authorization-server-migration/Client does not reuse the previous AS client credentials': { reason: `${OAUTH.reason}; it passes because the gate holds no OAuth credentials to reuse, which says nothing about it`, outcome: /^SUCCESS: $/ },
    'auth/authorization-server-migration/Client does not assume credentials are portable across authorization servers': { reason: 'as above', outcome: /^SUCCESS: $/ },
    'sep-2322-client-request-state/sep-2322-client-request-state-echoed': NO_INPUT_ROUND,
    'sep-2322-client-request-state/sep-2322-client-jsonrpc-id-different': NO_INPUT_ROUND,
    'sep-2322-client-request-state/sep-2322-client-no-state-omitted': NO_INPUT_ROUND,
    'request-metadata/ClientDeclaresRootsCapability': NOT_DECLARED,
    'request-metadata/ClientDeclaresSamplingCapability': NOT_DECLARED,
    'request-metadata/ClientDeclaresElicitationCapability': NOT_DECLARED,
    'http-standard-headers/ClientMcpMethodHeader_initialize': NO_INITIALIZE,
    'http-standard-headers/ClientMcpMethodHeader_notifications_initialized': NO_INITIALIZE,
    'http-standard-headers/ClientMcpMethodHeader_resources_list': ONLY_TOOLS,
    'http-standard-headers/ClientMcpMethodHeader_resources_read': ONLY_TOOLS,
    'http-standard-headers/ClientMcpMethodHeader_prompts_list': ONLY_TOOLS,
    'http-standard-headers/ClientMcpMethodHeader_prompts_get': ONLY_TOOLS,
    'http-standard-headers/ClientMcpNameHeader_resources_read': ONLY_TOOLS,
    'http-standard-headers/ClientMcpNameHeader_prompts_get': ONLY_TOOLS,
  },
};

/** Checks that say something about the gate's upstream client, which must be among those passed. */
const MUST_PASS: Record<'2025-11-25' | '2026-07-28', string[]> = {
  '2025-11-25': ['initialize/MCPClientInitialization', 'tools_call/ToolAddNumbers', 'sse-retry/ClientGracefulReconnect', 'sse-retry/ClientRespectsRetryField', 'sse-retry/ClientSendsLastEventId'],
  '2026-07-28': [
    'tools_call/ToolAddNumbers',
    'request-metadata/ClientPopulatesMeta',
    'request-metadata/ClientRetrySupportedVersion',
    'sep-2322-client-request-state/MRTRClientParallelIsolation',
    'http-standard-headers/ClientMcpNameHeader_tools_call',
    'http-custom-headers/ClientSupportsCustomHeaders',
    'http-custom-headers/ClientCustomHeader_NonAscii',
    'http-invalid-tool-headers/ClientKeepsValidTool',
    'http-invalid-tool-headers/ClientRejectsInvalidTool_invalid_space_in_name',
    'json-schema-ref-no-deref/NoNetworkRefDereference',
  ],
};

let folder: string;

beforeAll(async () => {
  folder = makeTempFolder();
  // The driver is TypeScript no built entry exports: bundled here, its packages found through a link to ours.
  await build({
    configFile: false,
    root: resolve('.'),
    logLevel: 'warn',
    build: {
      ssr: true,
      outDir: join(folder, 'driver'),
      emptyOutDir: false,
      target: 'node22',
      minify: false,
      rollupOptions: { input: { upstreamConformanceClient: resolve('test/integration/upstreamConformanceClient.ts') } },
    },
  });
  symlinkSync(resolve('node_modules'), join(folder, 'driver', 'node_modules'));
});

afterAll(() => {
  if (folder) removeTempFolder(folder);
});

/** One scenario's checks, and what the driver printed for it (shown with a check that went wrong). */
interface ScenarioResult {
  checks: Check[];
  clientOutput: string;
}

/** The checks of each scenario (`auth/...` for those under auth/), read from the suite's output folder. */
function readResults(outputDir: string, prefix = ''): Map<string, ScenarioResult> {
  const results = new Map<string, ScenarioResult>();
  for (const entry of readdirSync(outputDir)) {
    const checks = join(outputDir, entry, 'checks.json');
    if (!existsSync(checks)) {
      for (const [scenario, nested] of readResults(join(outputDir, entry), `${prefix}${entry}/`)) results.set(scenario, nested);
      continue;
    }
    const printed = (name: string) => (existsSync(join(outputDir, entry, name)) ? readFileSync(join(outputDir, entry, name), 'utf8').trim().split('\n').slice(-8).join('\n') : '');
    results.set(`${prefix}${entry.replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '')}`, {
      checks: JSON.parse(readFileSync(checks, 'utf8')) as Check[],
      clientOutput: `stdout: ${printed('stdout.txt')}\nstderr: ${printed('stderr.txt')}`,
    });
  }
  return results;
}

/**
 * How long one requirement set's run may take: its scenarios run one after another, each starting the
 * driver in a process of its own (5 to 7 s in all on an idle machine, ten times that on a busy one).
 */
const SUITE_RUN_MS = 3 * WAIT_MS;

/** Runs one requirement set's client scenarios against the driver. */
async function runSuite(revision: '2025-11-25' | '2026-07-28'): Promise<Map<string, ScenarioResult>> {
  const outputDir = join(folder, `results-${revision}`);
  const command = `node ${join(folder, 'driver', 'upstreamConformanceClient.js')}`;
  // Each scenario's driver has WAIT_MS to finish, a small part of which it needs when nothing is wrong.
  const args = [SUITE_CLI, 'client', '--command', command, '--requirements', revision, '--timeout', String(WAIT_MS), '-o', outputDir];
  // The CLI exits 1 whenever a check fails, the not-applicable ones included: its results are read from outputDir.
  await promisify(execFile)(process.execPath, args, { cwd: folder, timeout: SUITE_RUN_MS }).catch((error: { killed?: boolean }) => {
    if (error.killed) throw new Error(`the conformance suite's ${revision} client scenarios did not finish in ${SUITE_RUN_MS / 1000} s`);
  });
  return readResults(outputDir);
}

/** Why a check does not apply at a revision, and under which key, if it is named as not applicable. */
function notApplicable(revision: '2025-11-25' | '2026-07-28', scenario: string, check: Check): { key: string; excuse: NotApplicable } | undefined {
  const named = NOT_APPLICABLE[revision];
  const candidates = [`${scenario}/${check.name}`];
  if (check.name !== 'WireSchemaValid') candidates.push(`${scenario}/*`, ...(scenario.startsWith('auth/') ? ['auth/*'] : []));
  const key = candidates.find((candidate) => named[candidate]);
  return key ? { key, excuse: named[key]! } : undefined;
}

describe.each(['2025-11-25', '2026-07-28'] as const)("MCP conformance suite's client scenarios, requirement set %s, against the gate's upstream client", (revision) => {
  it('every applicable check passes, every other one is named, and every message the gate sent is valid wire form', async () => {
    const results = await runSuite(revision);
    const unexpected: string[] = [];
    const passed: string[] = [];
    const seen = new Set<string>();
    for (const [scenario, { checks, clientOutput }] of results) {
      for (const check of checks) {
        if (check.status === 'INFO') continue;
        const outcome = `${check.status}: ${check.errorMessage ?? ''}`;
        const named = notApplicable(revision, scenario, check);
        if (named) seen.add(named.key);
        // What the driver printed comes with the check: a check's own message may be empty.
        if (named ? !named.excuse.outcome.test(outcome) : check.status !== 'SUCCESS') unexpected.push(`${scenario}/${check.name} ${outcome}${named ? ` (named as: ${named.excuse.reason})` : ''}\n${clientOutput}`);
        else if (!named) passed.push(`${scenario}/${check.name}`);
      }
    }
    expect(unexpected).toEqual([]);
    // The names above still match checks the suite runs (a renamed check must not be excused silently).
    expect(Object.keys(NOT_APPLICABLE[revision]).filter((key) => !seen.has(key))).toEqual([]);
    expect(passed).toEqual(expect.arrayContaining(MUST_PASS[revision]));
    expect(passed.filter((check) => check.endsWith('/WireSchemaValid')).length).toBeGreaterThan(0);
  }, SUITE_RUN_MS + WAIT_MS);
});
