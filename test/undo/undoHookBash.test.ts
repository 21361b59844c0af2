/**
 * Prompts raised through Claude Code's hook say whether the call will be undoable, as the gate's own
 * prompts do; and a Bash call Claude Code runs on the host (`claudeCodeBashInGate` off) is recorded
 * from its PreToolUse to its PostToolUse with a scan of the workspace, and undone exactly. Through
 * the real `toolgate hook claude-code` process fed Claude Code's JSON, with real bash run in between.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../shared/approval';
import { CallEffectsSchema } from '../../shared/effects';
import { runBash, runHook } from '../hooks/hookProcesses';
import { approveEveryPrompt, startTestGate, type TestGate } from '../integration/helpers';
import { treeDigest, treeListing } from './undoTree';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');

/** A gate whose prompts are kept and approved at once. */
async function approvingGate(claudeCodeBashInGate: boolean): Promise<{ gate: TestGate; prompts: ApprovalRequest[] }> {
  const gate = await startTestGate({ policyMode: 'strict', claudeCodeBashInGate });
  const prompts: ApprovalRequest[] = [];
  approveEveryPrompt(gate.running.backend, prompts);
  return { gate, prompts };
}

/** Claude Code's recorded hook input of `fixture`, in this workspace, as `event`, with this tool_input. */
function hookJson(gate: TestGate, fixture: string, event: 'PreToolUse' | 'PostToolUse', toolInput: Record<string, unknown>, extra: Record<string, unknown> = {}): string {
  const input = JSON.parse(readFileSync(join(FIXTURES, fixture), 'utf8').replaceAll('${WORKSPACE}', gate.dirs.workspace)) as Record<string, unknown>;
  return JSON.stringify({ ...input, hook_event_name: event, tool_input: toolInput, tool_use_id: `toolu_${Math.random().toString(36).slice(2)}`, ...extra });
}

let onHost: { gate: TestGate; prompts: ApprovalRequest[] };
let inGate: { gate: TestGate; prompts: ApprovalRequest[] };

beforeAll(async () => {
  [onHost, inGate] = await Promise.all([approvingGate(false), approvingGate(true)]);
});

afterAll(async () => {
  await Promise.all([onHost?.gate.close(), inGate?.gate.close()]);
});

describe("the prompts of Claude Code's tools say whether the call will be undoable", () => {
  it('says undoable for a Write in the workspace, not undoable for one outside it, and how a Bash will be', async () => {
    const { gate, prompts } = inGate;
    const ws = gate.dirs.workspace;
    await runHook(gate.dirs.home, hookJson(gate, 'pre-write.json', 'PreToolUse', { file_path: join(ws, 'a.txt'), content: 'a\n' }));
    expect(prompts.at(-1)!.undoable).toBe('undoable');
    await runHook(gate.dirs.home, hookJson(gate, 'pre-write.json', 'PreToolUse', { file_path: join(gate.dirs.home, '..', 'elsewhere.txt'), content: 'b\n' }));
    expect(prompts.at(-1)!.undoable).toMatch(/^not undoable: .*elsewhere\.txt is outside the workspace/);
    // Bash run in the gate's sandbox is a shell_exec: its whole workspace is recorded.
    await runHook(gate.dirs.home, hookJson(gate, 'pre-bash.json', 'PreToolUse', { command: 'touch made.txt' }));
    expect(prompts.at(-1)!.undoable).toBe('undoable');
    // A tool the gate knows nothing of records nothing.
    await runHook(gate.dirs.home, hookJson(gate, 'pre-mcp.json', 'PreToolUse', { anything: 1 }));
    expect(prompts.at(-1)!.undoable).toMatch(/^not undoable: Toolgate does not record what Claude Code's mcp__/);
  });
});

describe("Claude Code's Bash run on the host", () => {
  it('is recorded between PreToolUse and PostToolUse and undone exactly, and its prompt says what cannot be', async () => {
    const { gate, prompts } = onHost;
    const ws = gate.dirs.workspace;
    mkdirSync(join(ws, 'src'));
    writeFileSync(join(ws, 'src/main.ts'), 'export const main = 1;\n');
    writeFileSync(join(ws, 'src/old.ts'), 'export const old = 2;\n');
    writeFileSync(join(ws, 'run.sh'), 'echo run\n');
    writeFileSync(join(ws, 'gone.txt'), 'to be deleted\n');
    const before = treeDigest(ws);
    const listed = treeListing(ws).join('\n');
    const command = 'printf "export const main = 3;\\n" > src/main.ts && mv src/old.ts src/renamed.ts && rm gone.txt && chmod 755 run.sh && mkdir -p out/deep && echo made > out/deep/new.txt';
    const pre = hookJson(gate, 'pre-bash.json', 'PreToolUse', { command, description: 'change files' });
    const answer = await runHook(gate.dirs.home, pre);
    expect(answer.answer.hookSpecificOutput?.permissionDecision).toBe('allow');
    // Claude Code runs it on the host: no updatedInput sends it to the gate.
    expect(answer.answer.hookSpecificOutput?.updatedInput).toBeUndefined();
    expect(prompts.at(-1)!.undoable).toBe("undoable except: what it changes outside the workspace or sends over the network (Claude Code runs it on the host, outside Toolgate's sandbox)");

    const ran = await runBash(command, ws);
    expect(ran.status, ran.stderr).toBe(0);
    const post = { ...JSON.parse(pre), hook_event_name: 'PostToolUse', tool_response: { stdout: ran.stdout, stderr: ran.stderr, interrupted: false, isImage: false } };
    await runHook(gate.dirs.home, JSON.stringify(post));

    const call = gate.running.gate.calls.list().find((snapshot) => snapshot.tool === 'claude_code.Bash' && snapshot.status === 'completed')!;
    expect(call.changedPaths).toBeGreaterThan(0);
    const completed = gate.running.gate.audit.forCall(call.callId).find((record) => record.kind === 'completed')!;
    const effects = CallEffectsSchema.parse((completed.payload as { effects: unknown }).effects);
    expect(effects.method).toBe('workspace-scan');
    expect(effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual([
      'gone.txt deleted',
      'out created',
      'out/deep created',
      'out/deep/new.txt created',
      'run.sh mode-changed',
      'src/main.ts modified',
      'src/renamed.ts renamed',
    ]);

    const report = await gate.running.backend.handlers.undoCall({ callId: call.callId, rewind: false, dryRun: false, choices: {} });
    expect(report.outcome, report.reason).toBe('undone');
    expect(treeListing(ws).join('\n')).toBe(listed);
    expect(treeDigest(ws)).toBe(before);
  });
});
