import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { PolicyMode } from '../../shared/policy';
import { PolicyEngine } from '../../main/policy/policyEngine';
import type { PolicyDecision } from '../../main/policy/tierPolicy';
import { BUILTIN_TOOLS } from '../../main/tools/builtinTools';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

/** A workspace, a state folder, a home folder and a managed file, all temp, for one engine. */
export interface PolicyFolders {
  root: string;
  workspace: string;
  home: string;
  userHome: string;
  managed: string;
  user: string;
  project: string;
  remove(): void;
}

/** Fresh temp folders for a policy engine. */
export function policyFolders(): PolicyFolders {
  const root = makeTempFolder();
  const folders = { workspace: join(root, 'ws'), home: join(root, 'state'), userHome: join(root, 'me'), etc: join(root, 'etc') };
  for (const folder of Object.values(folders)) mkdirSync(folder);
  return {
    root,
    ...folders,
    managed: join(folders.etc, 'policy.json'),
    user: join(folders.home, 'policy.json'),
    project: join(folders.workspace, '.toolgate', 'policy.json'),
    remove: () => removeTempFolder(root),
  };
}

/** Writes a policy file (its folder made as needed). */
export function writePolicy(path: string, policy: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, typeof policy === 'string' ? policy : JSON.stringify(policy, null, 2));
}

/** The built-in tools by name, as the gate registers them. */
export function builtinLookup(name: string) {
  return BUILTIN_TOOLS.find((tool) => tool.manifest.name === name)?.manifest;
}

/** An engine over the folders' files. */
export function policyEngine(folders: PolicyFolders, options: { mode?: PolicyMode; flagRules?: string[] } = {}): Promise<PolicyEngine> {
  return PolicyEngine.create({
    tools: builtinLookup,
    workspace: folders.workspace,
    home: folders.home,
    userHome: folders.userHome,
    managedFile: folders.managed,
    ...options,
  });
}

/** Decides a call the way the executor does: facts first (the shell parse), then the decision. */
export async function decideCall(engine: PolicyEngine, tool: string, input: Record<string, unknown>): Promise<PolicyDecision> {
  const manifest = builtinLookup(tool);
  if (!manifest) throw new Error(`no tool ${tool}`);
  return engine.decide(manifest, input, await engine.prepare(manifest, input));
}

/** Decides a shell line. */
export function decideShell(engine: PolicyEngine, command: string): Promise<PolicyDecision> {
  return decideCall(engine, 'shell_exec', { command });
}

/** Fresh folders per test, and an engine over a user policy the test writes; both removed after it. */
export function useUserPolicy(): { folders(): PolicyFolders; engine(): PolicyEngine; withUserPolicy(policy: unknown): Promise<PolicyEngine> } {
  let folders: PolicyFolders;
  let engine: PolicyEngine | undefined;
  beforeEach(() => {
    folders = policyFolders();
  });
  afterEach(() => {
    engine?.close();
    engine = undefined;
    folders.remove();
  });
  return {
    folders: () => folders,
    engine: () => engine!,
    withUserPolicy: async (policy) => {
      engine?.close();
      writePolicy(folders.user, policy);
      engine = await policyEngine(folders);
      return engine;
    },
  };
}
