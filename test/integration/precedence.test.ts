/**
 * Precedence through a real gate, with the official MCP client as the agent: a managed policy file
 * (as /etc/toolgate/policy.json), the user's, a trusted project file and --grant rules each hold a
 * rule for the SAME call, and the stronger effect decides (deny beats ask beats allow, whichever
 * layer holds it). A refused call raises no prompt and writes nothing; an asked one waits for a
 * person. Each allow is first shown to run on its own, so a refusal is the pair's doing. Every pair,
 * layer by layer, is in test/policy/precedence.test.ts.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { startGate, type RunningGate } from '../../main/gate/startGate';
import { trustProjectFile } from '../../main/policy/projectTrust';
import { callIdOf, connectMcp, makeTempDirs, nextApproval, readToken, textOf, type TempDirs } from './helpers';
import { WAIT_MS } from '../fixtures/processes';

let dirs: TempDirs;
let running: RunningGate;
let client: Client;
const prompts: ApprovalRequest[] = [];

/** Each pair's folder: its broad rule covers the folder, its narrow one exactly the file written. */
const MANAGED_DENY_USER_ASK = 'managed-deny-user-ask';
const MANAGED_DENY_USER_ALLOW = 'managed-deny-user-allow';
const USER_DENY_PROJECT_ALLOW = 'user-deny-project-allow';
const USER_DENY_USER_ASK = 'user-deny-user-ask';
const PROJECT_DENY_GRANT_ALLOW = 'project-deny-grant-allow';
const USER_ASK_PROJECT_AND_GRANT_ALLOW = 'user-ask-project-grant-allow';
const MANAGED_ASK_USER_ALLOW = 'managed-ask-user-allow';

const broad = (folder: string) => `write_file(${folder}/**)`;
const narrow = (folder: string) => `write_file(${folder}/a.txt)`;

beforeAll(async () => {
  dirs = makeTempDirs();
  const managedPolicyFile = join(dirs.outside, 'managed-policy.json');
  writeFileSync(
    managedPolicyFile,
    JSON.stringify({ deny: [broad(MANAGED_DENY_USER_ASK), broad(MANAGED_DENY_USER_ALLOW)], ask: [broad(MANAGED_ASK_USER_ALLOW)] }),
  );
  writeFileSync(
    join(dirs.home, 'policy.json'),
    JSON.stringify({
      deny: [broad(USER_DENY_PROJECT_ALLOW), broad(USER_DENY_USER_ASK)],
      ask: [narrow(MANAGED_DENY_USER_ASK), narrow(USER_DENY_USER_ASK), broad(USER_ASK_PROJECT_AND_GRANT_ALLOW)],
      allow: [narrow(MANAGED_DENY_USER_ALLOW), narrow(MANAGED_ASK_USER_ALLOW), 'write_file(user-allow/a.txt)'],
    }),
  );
  const project = join(dirs.workspace, '.toolgate', 'policy.json');
  mkdirSync(join(dirs.workspace, '.toolgate'));
  writeFileSync(
    project,
    JSON.stringify({
      deny: [broad(PROJECT_DENY_GRANT_ALLOW)],
      allow: [narrow(USER_DENY_PROJECT_ALLOW), narrow(USER_ASK_PROJECT_AND_GRANT_ALLOW), 'write_file(project-allow/a.txt)'],
    }),
  );
  trustProjectFile(dirs.home, project);
  running = await startGate({
    home: dirs.home,
    workspace: dirs.workspace,
    port: 0,
    // A prompt the test answers outlasts a busy machine's pause before the answer; a call wrongly
    // asked still ends with its prompt's expiry, within the test's time.
    approvalTimeoutMs: WAIT_MS,
    poolSize: 1,
    managedPolicyFile,
    policyRules: [narrow(PROJECT_DENY_GRANT_ALLOW), narrow(USER_ASK_PROJECT_AND_GRANT_ALLOW), 'write_file(grant-allow/a.txt)'],
  });
  running.backend.subscribe('approvalRequested', (request) => void prompts.push(request));
  client = await connectMcp(running.mcpUrl, readToken(dirs.home));
});

afterAll(async () => {
  await client?.close();
  await running?.close();
  dirs?.remove();
});

/** The agent writes `folder/a.txt`; the result as the agent sees it. */
function write(folder: string) {
  return client.callTool({ name: 'write_file', arguments: { path: `${folder}/a.txt`, content: 'x' } });
}

/** The policy step's audit record of a call: its decision and the layer of the rule that made it. */
function policyRecord(result: unknown) {
  return running.gate.audit.forCall(callIdOf(result)).find((record) => record.kind === 'policy')?.payload as { decision: string; provenance?: { source: { layer: string } } };
}

describe('each allow on its own runs the call unasked (so a refusal below is the stronger rule)', () => {
  it.each([
    ['user', 'user-allow'],
    ['project', 'project-allow'],
    ['flag', 'grant-allow'],
  ])('a %s allow', async (layer, folder) => {
    const result = await write(folder);
    expect(textOf(result)).not.toMatch(/^E[A-Z]+:/);
    expect(existsSync(join(dirs.workspace, folder, 'a.txt'))).toBe(true);
    expect(policyRecord(result)).toMatchObject({ decision: 'allow', provenance: { source: { layer } } });
  });
});

describe('the stronger rule decides the same call', () => {
  it.each([
    ['a managed deny beats a user ask', MANAGED_DENY_USER_ASK, 'managed'],
    ['a managed deny beats a user allow', MANAGED_DENY_USER_ALLOW, 'managed'],
    ['a user deny beats a project allow', USER_DENY_PROJECT_ALLOW, 'user'],
    ['a deny beats an ask in the same layer', USER_DENY_USER_ASK, 'user'],
    ['a project deny beats a --grant allow', PROJECT_DENY_GRANT_ALLOW, 'project'],
  ])('%s: refused before anyone is asked, nothing written', async (_name, folder, layer) => {
    const before = prompts.length;
    const result = await write(folder);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(new RegExp(`^EDENIED: denied by policy: denied by \`${broad(folder).replace(/[()*]/g, '\\$&')}\`, ${layer} policy`));
    expect(prompts.length).toBe(before);
    expect(existsSync(join(dirs.workspace, folder, 'a.txt'))).toBe(false);
    expect(policyRecord(result)).toMatchObject({ decision: 'deny', provenance: { source: { layer } } });
  });

  it.each([
    ['a user ask beats a project allow and a --grant allow', USER_ASK_PROJECT_AND_GRANT_ALLOW, 'user'],
    ['a managed ask beats a user allow', MANAGED_ASK_USER_ALLOW, 'managed'],
  ])('%s: a person is asked, and their denial stands', async (_name, folder, layer) => {
    const prompt = nextApproval(running.backend);
    const call = write(folder);
    const request = await prompt;
    expect(request.rule).toContain(`${layer} policy`);
    await running.backend.handlers.decideApproval({ approvalId: request.approvalId, decision: 'deny', reason: 'not this one' });
    const result = await call;
    expect(textOf(result)).toMatch(/^EDENIED: .*not this one/);
    expect(existsSync(join(dirs.workspace, folder, 'a.txt'))).toBe(false);
    expect(policyRecord(result)).toMatchObject({ decision: 'ask', provenance: { source: { layer } } });
  });
});
