/**
 * Claude Code's own Write, judged by the real `toolgate hook claude-code` command from Claude Code's
 * JSON: what it wrote between its PreToolUse and its PostToolUse is recorded, and undone.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallEffectsSchema } from '../../shared/effects';
import { runHook } from '../hooks/hookProcesses';
import { startTestGate, type TestGate, approveEveryPrompt } from '../integration/helpers';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '../fixtures/claude-code');

let gate: TestGate;

beforeAll(async () => {
  gate = await startTestGate();
  approveEveryPrompt(gate.running.backend);
});

afterAll(() => gate?.close());

/** Claude Code's recorded Write hook input for this workspace, as PreToolUse or as its PostToolUse. */
function writeHook(event: 'PreToolUse' | 'PostToolUse'): string {
  const input = JSON.parse(readFileSync(join(FIXTURES, 'pre-write.json'), 'utf8').replaceAll('${WORKSPACE}', gate.dirs.workspace)) as Record<string, unknown>;
  input.hook_event_name = event;
  if (event === 'PostToolUse') input.tool_response = { type: 'create', filePath: join(gate.dirs.workspace, 'notes/plan.md') };
  return JSON.stringify(input);
}

describe("Claude Code's Write through the hook", () => {
  it('records what it wrote, and a person can undo it', async () => {
    const pre = await runHook(gate.dirs.home, writeHook('PreToolUse'));
    expect(pre.answer.hookSpecificOutput?.permissionDecision).toBe('allow');
    // Claude Code writes the file itself, then reports.
    mkdirSync(join(gate.dirs.workspace, 'notes'));
    writeFileSync(join(gate.dirs.workspace, 'notes/plan.md'), '# Plan\n\n- ship the hook\n');
    await runHook(gate.dirs.home, writeHook('PostToolUse'));

    const call = gate.running.gate.calls.list().find((snapshot) => snapshot.tool === 'claude_code.Write')!;
    const completed = gate.running.gate.audit.forCall(call.callId).find((record) => record.kind === 'completed')!;
    const effects = CallEffectsSchema.parse((completed.payload as { effects: unknown }).effects);
    expect(effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['notes created', 'notes/plan.md created']);

    const report = await gate.running.backend.handlers.undoCall({ callId: call.callId, rewind: false, dryRun: false, choices: {} });
    expect(report.outcome, report.reason).toBe('undone');
    expect(existsSync(join(gate.dirs.workspace, 'notes'))).toBe(false);
  });
});

describe("Claude Code's Write, handed to Claude Code's own prompt", () => {
  let unanswered: TestGate;
  beforeAll(async () => {
    // Nobody answers in Toolgate's console: its prompt runs out, and Claude Code asks instead.
    unanswered = await startTestGate({ approvalTimeoutMs: 300 });
  });
  afterAll(() => unanswered?.close());

  it('is recorded all the same once Claude Code ran it, and a person can undo it', async () => {
    const hook = (event: 'PreToolUse' | 'PostToolUse') => {
      const input = JSON.parse(readFileSync(join(FIXTURES, 'pre-write.json'), 'utf8').replaceAll('${WORKSPACE}', unanswered.dirs.workspace)) as Record<string, unknown>;
      input.hook_event_name = event;
      if (event === 'PostToolUse') input.tool_response = { type: 'create', filePath: join(unanswered.dirs.workspace, 'notes/plan.md') };
      return JSON.stringify(input);
    };
    const pre = await runHook(unanswered.dirs.home, hook('PreToolUse'));
    expect(pre.answer.hookSpecificOutput?.permissionDecision).toBe('ask');
    // The person allows it at Claude Code's prompt; Claude Code writes the file, then reports.
    mkdirSync(join(unanswered.dirs.workspace, 'notes'));
    writeFileSync(join(unanswered.dirs.workspace, 'notes/plan.md'), '# Plan\n');
    await runHook(unanswered.dirs.home, hook('PostToolUse'));

    const call = unanswered.running.gate.calls.list().find((snapshot) => snapshot.tool === 'claude_code.Write')!;
    const completed = unanswered.running.gate.audit.forCall(call.callId).find((record) => record.kind === 'completed')!;
    const effects = CallEffectsSchema.parse((completed.payload as { effects: unknown }).effects);
    expect(effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['notes created', 'notes/plan.md created']);
    const report = await unanswered.running.backend.handlers.undoCall({ callId: call.callId, rewind: false, dryRun: false, choices: {} });
    expect(report.outcome, report.reason).toBe('undone');
    expect(existsSync(join(unanswered.dirs.workspace, 'notes'))).toBe(false);
  });
});
