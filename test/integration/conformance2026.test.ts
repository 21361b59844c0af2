/**
 * The official MCP conformance suite's 2026-07-28 requirement set (`--requirements 2026-07-28`,
 * suite 0.2.0-alpha.12) against a real gate, through the same token-adding proxy as the 2025 sets
 * (conformance.test.ts). Each check either must be SUCCESS or is named below as not applicable to a
 * gate that serves tools only, with the reason and the outcome that shows it still does not apply:
 * a check that starts to pass, or one a newer suite adds, fails this test until someone decides.
 * Every scenario's `wire-schema-valid` check (each message the gate sent is valid 2026-07-28 wire
 * form) must always be SUCCESS.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBearerProxy, type BearerProxy } from '../fixtures/bearerProxy';
import { startTestGate, type TestGate } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

const SUITE_CLI = resolve('node_modules/@modelcontextprotocol/conformance-2026/dist/index.js');

/** One check of a scenario, as the suite writes it to checks.json. */
interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

/** Why a check does not apply, and the outcome that shows it still does not. */
interface NotApplicable {
  reason: string;
  outcome: RegExp;
}

const NO_PROMPTS = { reason: 'no prompts capability', outcome: /^FAILURE: Failed: Method not found$/ };
const NO_RESOURCES = { reason: 'no resources capability', outcome: /^FAILURE: Failed: Method not found$/ };
const REFERENCE = "calls a tool of the suite's reference server by its bare name; the gate serves its own tools (upstream servers' as server__tool)";
/** What a check that calls a reference tool gets: the gate's JSON-RPC error for an unknown tool, naming its own tools. */
const UNKNOWN_REFERENCE_TOOL = { reason: REFERENCE, outcome: /^FAILURE: Failed: ENOTFOUND: no tool named "test_\w+"; the tools are: / };
const NO_INPUT = `${REFERENCE}; no gate tool asks the agent for input (a person approves calls in the console, not through the agent)`;
/** What an input-required check gets when it calls its reference tool: the unknown tool's JSON-RPC error. */
const NO_INPUT_TOOL = { reason: NO_INPUT, outcome: /^FAILURE: JSON-RPC error: ENOTFOUND: no tool named "test_input_required_result_\w+"; the tools are: / };
/** A stateless check that needs a diagnostic tool of the reference server, which the gate does not list. */
const NO_DIAGNOSTIC_TOOL = (tool: string) => ({ reason: `${REFERENCE} (${tool})`, outcome: new RegExp(`^FAILURE: Not testable: server does not list the diagnostic tool '${tool}' in tools/list`) });

/** By `scenario/check`, or `scenario/*` for every check of a scenario but wire-schema-valid. */
const NOT_APPLICABLE: Record<string, NotApplicable> = {
  'completion-complete/*': { reason: 'no prompts or resource templates, so no completions capability', outcome: /^FAILURE: Failed: Method not found$/ },
  'prompts-list/*': NO_PROMPTS,
  'prompts-get-simple/*': NO_PROMPTS,
  'prompts-get-with-args/*': NO_PROMPTS,
  'prompts-get-embedded-resource/*': NO_PROMPTS,
  'prompts-get-with-image/*': NO_PROMPTS,
  'resources-list/*': NO_RESOURCES,
  'resources-read-text/*': NO_RESOURCES,
  'resources-read-binary/*': NO_RESOURCES,
  'resources-templates-read/*': NO_RESOURCES,
  'caching/sep-2549-prompts-list-caching-hints': { reason: 'no prompts', outcome: /^FAILURE: prompts\/list returned JSON-RPC error -32601: Method not found$/ },
  'caching/sep-2549-resources-list-caching-hints': { reason: 'no resources', outcome: /^FAILURE: resources\/list returned JSON-RPC error -32601: Method not found$/ },
  'caching/sep-2549-resources-templates-list-caching-hints': { reason: 'no resources', outcome: /^FAILURE: resources\/templates\/list returned JSON-RPC error -32601/ },
  'caching/sep-2549-resources-read-caching-hints': { reason: 'no resources', outcome: /^SKIPPED: resources\/read was not exercised/ },
  'sep-2164-resource-not-found/sep-2164-error-code': { reason: 'no resources: resources/read is an unknown method', outcome: /^WARNING: Expected error code -32602 \(Invalid Params\), got -32601/ },
  'sep-2164-resource-not-found/sep-2164-data-uri': { reason: 'no resources (as above)', outcome: /^WARNING: Error data.uri is undefined/ },
  'sep-2164-resource-not-found/sep-2164-no-empty-contents': { reason: 'no resources: nothing is read, so nothing empty comes back', outcome: /^SUCCESS: $/ },
  'tools-call-simple-text/*': UNKNOWN_REFERENCE_TOOL,
  'tools-call-error/*': UNKNOWN_REFERENCE_TOOL,
  'tools-call-image/*': UNKNOWN_REFERENCE_TOOL,
  'tools-call-audio/*': UNKNOWN_REFERENCE_TOOL,
  'tools-call-embedded-resource/*': UNKNOWN_REFERENCE_TOOL,
  'tools-call-mixed-content/*': UNKNOWN_REFERENCE_TOOL,
  'tools-call-with-progress/*': UNKNOWN_REFERENCE_TOOL,
  'json-schema-2020-12/*': { reason: REFERENCE, outcome: /^FAILURE: Tool 'json_schema_2020_12_tool' not found/ },
  'http-custom-header-server-validation/*': { reason: 'no gate tool declares an x-mcp-header parameter', outcome: /^FAILURE: Not testable: server exposes no tool with x-mcp-header annotations/ },
  'input-required-result-basic-elicitation/*': NO_INPUT_TOOL,
  'input-required-result-basic-sampling/*': NO_INPUT_TOOL,
  'input-required-result-basic-list-roots/*': NO_INPUT_TOOL,
  'input-required-result-request-state/*': NO_INPUT_TOOL,
  'input-required-result-multiple-input-requests/*': NO_INPUT_TOOL,
  'input-required-result-multi-round/*': { reason: NO_INPUT, outcome: /^FAILURE: Expected InputRequiredResult with inputRequests and requestState$/ },
  'input-required-result-missing-input-response/*': { reason: NO_INPUT, outcome: /^WARNING: Server returned JSON-RPC error instead of re-requesting via InputRequiredResult/ },
  'input-required-result-non-tool-request/*': { reason: `${NO_INPUT}; and no prompts or resources`, outcome: /^FAILURE: JSON-RPC error: Method not found$/ },
  'input-required-result-result-type/*': NO_INPUT_TOOL,
  'input-required-result-tampered-state/*': { reason: NO_INPUT, outcome: /^FAILURE: Prerequisite failed: could not get initial InputRequiredResult/ },
  'input-required-result-capability-check/*': NO_INPUT_TOOL,
  // Its reference tool being unknown, the gate answers with an error, which passes the check without testing input validation.
  'input-required-result-validate-input/*': { reason: `${NO_INPUT}; the unknown tool's JSON-RPC error passes it, which says nothing about the gate`, outcome: /^SUCCESS: $/ },
  'input-required-result-ignore-extra-params/*': { reason: REFERENCE, outcome: /^WARNING: Server returned JSON-RPC error when extra params were included: ENOTFOUND: no tool named "test_input_required_result_\w+"/ },
  // The gate answers its unknown-tool probe with a JSON-RPC error, so the suite no longer reads the probe as run.
  'server-stateless/sep-2575-server-rejects-undeclared-capability': NO_DIAGNOSTIC_TOOL('test_missing_capability'),
  'server-stateless/sep-2575-missing-capability-http-400': NO_DIAGNOSTIC_TOOL('test_missing_capability'),
  'server-stateless/sep-2575-http-server-no-independent-requests-on-stream': NO_DIAGNOSTIC_TOOL('test_streaming_elicitation'),
  'server-stateless/sep-2575-server-no-log-without-loglevel': NO_DIAGNOSTIC_TOOL('test_logging_tool'),
  'server-stateless/sep-2575-server-sends-prompts-list-changed-on-subscription': { reason: 'no prompts', outcome: /^SKIPPED: $/ },
  'server-stateless/sep-2575-server-sends-tools-list-changed-on-subscription': {
    reason: "changes the tool list through the reference server's test_trigger_tool_change; the gate's own list change reaching a listen stream is checked in mcpModern.test.ts",
    outcome: /^WARNING: Mutated the tool list but no notifications\/tools\/list_changed arrived/,
  },
};

/** The tasks extension: run by the suite but not scored for 2026-07-28; the gate offers no tasks. */
const EXTENSION = /^tasks-/;

let gate: TestGate;
let proxy: BearerProxy;

beforeAll(async () => {
  gate = await startTestGate();
  proxy = await startBearerProxy(gate.running.port, gate.token);
});

afterAll(async () => {
  await proxy?.close();
  await gate?.close();
});

/** Runs the 2026-07-28 requirement set; the checks of each scenario by name. */
async function runSuite(): Promise<Map<string, Check[]>> {
  const outputDir = join(gate.dirs.outside, 'conformance-2026');
  const args = [SUITE_CLI, 'server', '--url', `http://127.0.0.1:${proxy.port}/mcp`, '--requirements', '2026-07-28', '-o', outputDir];
  // The CLI exits 1 whenever a check fails, the not-applicable ones included: its results are read from outputDir.
  await promisify(execFile)(process.execPath, args, { cwd: gate.dirs.outside, timeout: WAIT_MS }).catch((error: { killed?: boolean }) => {
    if (error.killed) throw new Error(`the conformance suite did not finish in ${WAIT_MS / 1000} s`);
  });
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(outputDir)) {
    const scenario = entry.replace(/^server-/, '').replace(/-\d{4}-\d\d-\d\dT[\d-]+Z$/, '');
    results.set(scenario, JSON.parse(readFileSync(join(outputDir, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

/** Why a check does not apply, if it is named as not applicable. */
function notApplicable(scenario: string, check: string): NotApplicable | undefined {
  return NOT_APPLICABLE[`${scenario}/${check}`] ?? (check === 'wire-schema-valid' ? undefined : NOT_APPLICABLE[`${scenario}/*`]);
}

describe('MCP conformance suite, requirement set 2026-07-28', () => {
  it('every applicable check passes, every other one is named, and every message the gate sent is valid wire form', async () => {
    const results = await runSuite();
    const unexpected: string[] = [];
    const passed: string[] = [];
    const seen = new Set<string>();
    for (const [scenario, checks] of results) {
      for (const check of checks) {
        const outcome = `${check.status}: ${check.errorMessage ?? ''}`;
        if (EXTENSION.test(scenario) && check.id !== 'wire-schema-valid') continue;
        const excused = notApplicable(scenario, check.id);
        if (excused) seen.add(NOT_APPLICABLE[`${scenario}/${check.id}`] ? `${scenario}/${check.id}` : `${scenario}/*`);
        if (excused ? !excused.outcome.test(outcome) : check.status !== 'SUCCESS') unexpected.push(`${scenario}/${check.id} ${outcome}${excused ? ` (named as: ${excused.reason})` : ''}`);
        else if (!excused) passed.push(`${scenario}/${check.id}`);
      }
    }
    expect(unexpected).toEqual([]);
    // No check reads the gate's answer to a tool it does not have as that tool having run.
    const readAsRun = [...results].flatMap(([scenario, checks]) => checks.filter((check) => /executed/i.test(check.errorMessage ?? '')).map((check) => `${scenario}/${check.id} ${check.errorMessage}`));
    expect(readAsRun).toEqual([]);
    // The names above still match checks the suite runs (a renamed check must not be excused silently).
    expect(Object.keys(NOT_APPLICABLE).filter((key) => !seen.has(key))).toEqual([]);
    // The checks that say something about the gate: discover, the envelope, headers, errors, listen streams, tools/list.
    for (const check of ['server-stateless/sep-2575-server-implements-discover', 'server-stateless/sep-2575-server-sends-subscription-ack', 'tools-list/tools-list', 'http-header-validation/sep-2243-server-reject-invalid-headers', 'dns-rebinding-protection/localhost-host-rebinding-rejected']) {
      expect(passed).toContain(check);
    }
  });
});
