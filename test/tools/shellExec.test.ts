import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { PreviewSchema } from '../../shared/approval';
import type { ToolContext } from '../../main/registry/defineTool';
import { shellExecTool } from '../../main/tools/shellExec';
import { forcePipesForTesting } from '../../main/tools/shell/runShell';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let root: string;
let workspace: string;

beforeEach(() => {
  root = makeTempFolder();
  workspace = join(root, 'workspace');
  mkdirSync(join(workspace, 'sub'), { recursive: true });
  mkdirSync(join(root, 'outside'));
});

afterEach(() => {
  forcePipesForTesting(false);
  removeTempFolder(root);
});

/** Runs the tool in-process, after its input schema, as the tool process would. */
async function run(input: unknown, extra: Partial<ToolContext> = {}): Promise<any> {
  return shellExecTool.execute(shellExecTool.input.parse(input), { workspace, dryRun: false, callId: 'test-call', ...extra });
}

async function failure(input: unknown, dryRun = false): Promise<GateError> {
  try {
    await run(input, { dryRun });
  } catch (error) {
    if (error instanceof GateError) return error;
    throw error;
  }
  throw new Error('the tool did not fail');
}

/** Whether a process still runs (a zombie left for a parent that never reaps counts as ended). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

describe('shell_exec manifest', () => {
  it('is RESTRICTED, spawns processes, confines cwd and has a dry run', () => {
    const { manifest } = shellExecTool;
    expect(manifest.tier).toBe('RESTRICTED');
    expect(manifest.sideEffects).toEqual(['ProcessSpawn', 'FsRead', 'FsWrite']);
    expect(manifest.pathArguments).toEqual(['cwd']);
    expect(manifest.supportsDryRun).toBe(true);
    expect(() => shellExecTool.input.parse({ command: 'ls', timeoutMs: manifest.bounds.timeoutMs + 1 })).toThrow();
  });
});

describe('shell_exec dry run', () => {
  it('returns the command preview and runs nothing', async () => {
    const preview = await run({ command: 'touch made.txt && ls | wc -l', cwd: 'sub' }, { dryRun: true });
    expect(PreviewSchema.parse(preview)).toMatchObject({ kind: 'command', command: 'touch made.txt && ls | wc -l', cwd: 'sub' });
    expect(preview.commands.map((command: { argv: string[] }) => command.argv)).toEqual([['touch', 'made.txt'], ['ls'], ['wc', '-l']]);
    expect(existsSync(join(workspace, 'sub', 'made.txt'))).toBe(false);
  });

  it('refuses a line the grammar cannot read, in a dry run and in a real run', async () => {
    expect((await failure({ command: 'echo "unterminated' }, true)).code).toBe('EVALIDATION');
    const error = await failure({ command: 'touch ran.txt; echo "unterminated' });
    expect(error.message).toContain('nothing was run');
    expect(existsSync(join(workspace, 'ran.txt'))).toBe(false);
  });
});

describe('shell_exec run (pseudo-terminal)', () => {
  it('runs in the workspace and returns exit code and output as plain text', async () => {
    const result = await run({ command: "printf '\\e[31mred\\e[0m\\n'; pwd; echo oops >&2; exit 3" });
    expect(result).toMatchObject({ exitCode: 3, timedOut: false });
    // A pty merges stderr into stdout; colours are gone from what the agent reads.
    expect(result.stdout).toBe(`red\n${workspace}\noops\n`);
    expect(result.stderr).toBeUndefined();
  });

  it('runs in cwd, and refuses a cwd outside the workspace or that is no folder', async () => {
    expect((await run({ command: 'pwd', cwd: 'sub' })).stdout).toBe(`${join(workspace, 'sub')}\n`);
    expect((await failure({ command: 'pwd', cwd: '../outside' })).code).toBe('EPERMISSION');
    symlinkSync(join(root, 'outside'), join(workspace, 'escape'));
    expect((await failure({ command: 'pwd', cwd: 'escape' })).code).toBe('EPERMISSION');
    expect((await failure({ command: 'pwd', cwd: 'missing' })).code).toBe('EVALIDATION');
  });

  it('streams the output through context.emit as it comes, escape sequences kept', async () => {
    const chunks: string[] = [];
    const times: number[] = [];
    const started = Date.now();
    await run(
      { command: "for i in 1 2; do printf '\\e[32mline %s\\e[0m\\n' $i; sleep 0.3; done" },
      { emit: (chunk) => (chunks.push(chunk), times.push(Date.now() - started)) },
    );
    expect(chunks.join('')).toContain('\u001b[32mline 1\u001b[0m');
    expect(chunks.join('')).toContain('line 2');
    // The first line arrived before the command ended.
    expect(times[0]!).toBeLessThan(300);
  });

  it('kills the whole process group on its deadline', async () => {
    const started = Date.now();
    const result = await run({ command: 'sleep 30 & echo $! > /dev/stderr; echo child $!; sleep 30', timeoutMs: 500 });
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(137);
    expect(Date.now() - started).toBeLessThan(5_000);
    const pid = Number(/child (\d+)/.exec(result.stdout)![1]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(pid)).toBe(false);
  });

  it('ends what the command left running in the background when the shell exits', async () => {
    const result = await run({ command: 'sleep 30 & echo child $!' });
    expect(result.exitCode).toBe(0);
    const pid = Number(/child (\d+)/.exec(result.stdout)![1]);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(alive(pid)).toBe(false);
  });

  it('keeps only the newest output, saying how much it left out', async () => {
    const result = await run({ command: 'seq 1 40000' });
    expect(result.droppedChars).toBeGreaterThan(0);
    expect(result.stdout.endsWith('39999\n40000\n')).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(96 * 1024);
  });
});

describe('shell_exec run (pipes, where node-pty is missing)', () => {
  it('keeps stderr apart and still honours the deadline', async () => {
    forcePipesForTesting(true);
    const result = await run({ command: 'echo out; echo err >&2; exit 2' });
    expect(result).toEqual({ exitCode: 2, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    const slow = await run({ command: 'sleep 30', timeoutMs: 300 });
    expect(slow).toMatchObject({ timedOut: true, exitCode: 137 });
  });
});
