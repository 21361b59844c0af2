/**
 * A shell command's workspace scans cost what changed since the last one, not the workspace's size,
 * and still see what another program changed between calls: through a real gate and the official MCP
 * client, with the work counted (entries stat'd, files hashed), never timed.
 */
import { spawnSync } from 'node:child_process';
import { linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallEffectsSchema, type CallEffects } from '../../shared/effects';
import { scanWork } from '../../main/undo/snapshot';
import { approveEveryPrompt, callIdOf, connectMcp, startTestGate, textOf, type TestGate } from '../integration/helpers';

/** Files in the workspace: a whole scan stats at least this many entries. */
const FILES = 2000;

let gate: TestGate;
let client: Client;

beforeAll(async () => {
  gate = await startTestGate();
  approveEveryPrompt(gate.running.backend);
  for (let folder = 0; folder < FILES / 100; folder++) {
    mkdirSync(join(gate.dirs.workspace, `src-${folder}`));
    for (let file = 0; file < 100; file++) writeFileSync(join(gate.dirs.workspace, `src-${folder}`, `file-${file}.ts`), `export const value = ${folder * 100 + file};\n`);
  }
  client = await connectMcp(gate.running.mcpUrl, gate.token);
});

afterAll(async () => {
  await client?.close();
  await gate?.close();
});

/** Runs a shell command through the gate; answers its call id, what its record says it changed, and the scans' work meanwhile. */
async function shell(command: string): Promise<{ callId: string; effects: CallEffects; stats: number; hashes: number }> {
  const stats = scanWork.stats;
  const hashes = scanWork.hashes;
  const result = await client.callTool({ name: 'shell_exec', arguments: { command } });
  expect(result.isError, textOf(result)).toBeFalsy();
  const callId = callIdOf(result);
  const completed = gate.running.gate.audit.forCall(callId).find((record) => record.kind === 'completed')!;
  return { callId, effects: CallEffectsSchema.parse((completed.payload as { effects?: unknown }).effects), stats: scanWork.stats - stats, hashes: scanWork.hashes - hashes };
}

/** Another program, not the gate, changing the workspace between two calls. */
async function otherProgram(script: string): Promise<void> {
  const ran = spawnSync('bash', ['-c', script], { cwd: gate.dirs.workspace, encoding: 'utf8' });
  expect(ran.status, ran.stderr).toBe(0);
  // The loop turns before the next call: what came due while spawnSync held it runs first. The gate's
  // server closes a connection idle past its keep-alive then, before the agent's next call picks it
  // up (a run slower than that keep-alive otherwise ended in ECONNRESET).
  for (let turn = 0; turn < 3; turn++) await new Promise((resolve) => setImmediate(resolve));
}

describe("a shell command's scans of the workspace", () => {
  it('stat only what changed since the last call, and still see what another program changed meanwhile', { timeout: 120_000 }, async () => {
    // The first call reads the whole workspace.
    const first = await shell('echo one > first.txt');
    expect(first.stats).toBeGreaterThan(FILES);

    await otherProgram('echo "edited elsewhere" > src-3/file-7.ts && chmod 600 src-5/file-1.ts && rm src-9/file-2.ts && mkdir -p made/deep && echo inside > made/deep/new.txt');
    const second = await shell('echo two > second.txt');
    // What the other program did before the call is not the call's.
    expect(second.effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['second.txt created']);
    // Both scans together looked at a few dozen entries, not the workspace's thousands.
    expect(second.stats).toBeLessThan(FILES / 20);
    expect(second.hashes).toBeLessThan(10);

    // The edit made elsewhere is what the next call found before it ran: its undo puts that back, not the first version.
    const third = await shell('echo "by the agent" > src-3/file-7.ts && cat made/deep/new.txt && rm made/deep/new.txt && chmod 644 src-5/file-1.ts');
    expect(third.effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['made/deep/new.txt deleted', 'src-3/file-7.ts modified', 'src-5/file-1.ts mode-changed']);
    const undone = await gate.running.backend.handlers.undoCall({ callId: third.callId, rewind: false, dryRun: false, choices: {} });
    expect(undone.outcome, undone.reason).toBe('undone');
    expect(readFileSync(join(gate.dirs.workspace, 'src-3/file-7.ts'), 'utf8')).toBe('edited elsewhere\n');
    expect(readFileSync(join(gate.dirs.workspace, 'made/deep/new.txt'), 'utf8')).toBe('inside\n');
  });

  it('sees a write through a name a file has outside the workspace (a hard link), which raises no event in the workspace', { timeout: 120_000 }, async () => {
    const outsideName = join(gate.dirs.outside, 'shared.ts');
    writeFileSync(join(gate.dirs.workspace, 'shared.ts'), 'first\n');
    linkSync(join(gate.dirs.workspace, 'shared.ts'), outsideName);
    await shell('true');
    // Written in place through the other name: the same file, changed, with no event in the workspace's folders.
    await otherProgram(`echo "through the link" > ${outsideName}`);
    const rewrote = await shell('echo "by the agent" > shared.ts');
    expect(rewrote.effects.effects.map((effect) => `${effect.path} ${effect.kind}`)).toEqual(['shared.ts modified']);
    const undone = await gate.running.backend.handlers.undoCall({ callId: rewrote.callId, rewind: false, dryRun: false, choices: {} });
    expect(undone.outcome, undone.reason).toBe('undone');
    expect(readFileSync(join(gate.dirs.workspace, 'shared.ts'), 'utf8')).toBe('through the link\n');
  });

  it('sees every change made while the gate could not read the kernel\'s news in time (its queue overflowed): the scan is whole', { timeout: 120_000 }, async () => {
    const overflowing = Number(readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim()) + 2000;
    mkdirSync(join(gate.dirs.workspace, 'flood'));
    await shell('true');
    // spawnSync holds the gate's event loop (it runs in this process) while the program makes more files than the queue holds.
    await otherProgram(`cd flood && seq 1 ${overflowing} | xargs touch`);
    const removed = await shell('rm -r flood');
    expect(removed.effects.effects.length + (removed.effects.omitted ?? 0)).toBe(overflowing + 1);
  });
});
