import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { PreviewSchema } from '../../shared/approval';
import type { ToolContext } from '../../main/registry/defineTool';
import { shellExecTool } from '../../main/tools/shellExec';
import { forcePipesForTesting, runShell } from '../../main/tools/shell/runShell';
import { usePtyHere } from '../../main/hosts/ptyHere';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { gateErrorOf } from '../fixtures/gateErrors';
import { WAIT_MS, waitUntil } from '../fixtures/processes';

// As the tool process does: only where tools run is node-pty loaded.
usePtyHere();

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
  return gateErrorOf(() => run(input, { dryRun }));
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
  it('runs in the workspace and returns exit code, stdout and stderr as plain text', async () => {
    const result = await run({ command: "printf '\\e[31mred\\e[0m\\n'; pwd; printf '\\e[33moops\\e[0m\\n' >&2; exit 3" });
    // Colours are gone from what the agent reads, from both streams.
    expect(result).toEqual({ exitCode: 3, stdout: `red\n${workspace}\n`, stderr: 'oops\n', timedOut: false });
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
    // The command waits for the test to hear its first line: only output streamed as it comes lets it end.
    const heard = join(root, 'heard');
    const result = await run(
      { command: `printf '\\e[32mline 1\\e[0m\\n'; until [ -e ${heard} ]; do sleep 0.05; done; printf 'line 2\\n'`, timeoutMs: WAIT_MS },
      { emit: (chunk) => (chunks.push(chunk), writeFileSync(heard, '')) },
    );
    expect(result.timedOut).toBe(false);
    expect(chunks[0]).toContain('\u001b[32mline 1\u001b[0m');
    expect(chunks.join('')).toContain('line 2');
  });

  it('kills the whole process group on its deadline', async () => {
    // The deadline leaves the shell time to start its child and say so first, on a busy machine too.
    const result = await run({ command: 'sleep 30 & echo $! > /dev/stderr; echo child $!; sleep 30', timeoutMs: 2000 });
    // Ended by its own 2 s deadline (the sleeps' 30 s would come long after it).
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).toBe(137);
    expect(result.stdout).toMatch(/child \d+/);
    const pid = Number(/child (\d+)/.exec(result.stdout)![1]);
    await waitUntil(() => !alive(pid), 'the background child to end');
  });

  it('ends what the command left running in the background when the shell exits', async () => {
    const result = await run({ command: 'sleep 30 & echo child $!' });
    expect(result.exitCode).toBe(0);
    const pid = Number(/child (\d+)/.exec(result.stdout)![1]);
    await waitUntil(() => !alive(pid), 'the background child to end');
  });

  it('keeps only the newest output, saying how much it left out', async () => {
    const result = await run({ command: 'seq 1 40000' });
    expect(result.droppedChars).toBeGreaterThan(0);
    expect(result.stdout.endsWith('39999\n40000\n')).toBe(true);
    expect(result.stdout.length).toBeLessThanOrEqual(96 * 1024);
  });
});

describe('shell_exec stdout and stderr (pseudo-terminal and FIFO)', () => {
  it('separates stdout from stderr; stdout is a terminal, stderr is not', async () => {
    expect(await run({ command: 'echo out; echo err >&2' })).toEqual({ exitCode: 0, stdout: 'out\n', stderr: 'err\n', timedOut: false });
    const terminals = await run({ command: '[ -t 1 ] && echo stdout-tty; [ -t 2 ] || echo stderr-not-tty' });
    expect(terminals.stdout).toBe('stdout-tty\nstderr-not-tty\n');
  });

  it('returns a command that writes only stderr, and one that writes nothing, promptly', async () => {
    expect(await run({ command: 'echo only >&2; exit 1' })).toEqual({ exitCode: 1, stdout: '', stderr: 'only\n', timedOut: false });
    // No wait for a writer that never comes: test/tools/stderrFifo.test.ts shows the FIFO's end is seen without the grace.
    expect(await run({ command: 'true' })).toEqual({ exitCode: 0, stdout: '', stderr: '', timedOut: false });
  });

  it('reports the exit code of a failing command with its error message', async () => {
    const result = await run({ command: 'ls does-not-exist' });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('does-not-exist');
    expect((await run({ command: 'kill -TERM $$' })).exitCode).toBe(143);
  });

  it('runs the command exactly as typed: quotes, dollars and newlines reach the shell untouched, no extra arguments', async () => {
    const command = `printf '%s|' "a  b" '$HOME' "it's" \\$0x; echo "$#"\necho '"; exit 9; "' >&2`;
    expect(await run({ command })).toEqual({ exitCode: 0, stdout: "a  b|$HOME|it's|$0x|0\n", stderr: '"; exit 9; "\n', timedOut: false });
  });

  it('reads 100k lines of stderr interleaved with 100k of stdout without a deadlock, newest kept', async () => {
    const emitted: string[] = [];
    const result = await run(
      { command: "(seq 1 100000 | sed 's/^/e/' >&2 &); seq 1 100000; wait", timeoutMs: WAIT_MS },
      { emit: (chunk) => emitted.push(chunk) },
    );
    expect(result).toMatchObject({ exitCode: 0, timedOut: false });
    expect(result.stdout.endsWith('99999\n100000\n')).toBe(true);
    expect(result.stderr.endsWith('e99999\ne100000\n')).toBe(true);
    expect(result.stdout).not.toContain('e');
    expect(result.droppedChars).toBeGreaterThan(0);
    // The Live view gets stderr too, with terminal line ends.
    expect(emitted.join('')).toContain('e100000\r\n');
  });

  it('streams stderr to the Live view as it comes, with terminal line ends', async () => {
    const chunks: string[] = [];
    // As on stdout: the command ends only once the test has heard its first line.
    const heard = join(root, 'heard');
    const result = await run(
      { command: `echo first >&2; until [ -e ${heard} ]; do sleep 0.05; done; echo second >&2`, timeoutMs: WAIT_MS },
      { emit: (chunk) => (chunks.push(chunk), writeFileSync(heard, '')) },
    );
    expect(result.timedOut).toBe(false);
    expect(chunks.join('')).toBe('first\r\nsecond\r\n');
  });

  it('removes the FIFO and its folder afterwards, also after a timeout', async () => {
    const result = await run({ command: 'readlink /proc/$$/fd/2' });
    const fifo = result.stdout.trim();
    expect(fifo).toMatch(/toolgate-stderr-[^/]+\/stderr$/);
    expect(existsSync(dirname(fifo))).toBe(false);
    // The deadline leaves the shell time to name its FIFO first, on a busy machine too.
    const slow = await run({ command: 'readlink /proc/$$/fd/2; sleep 30 >&2', timeoutMs: 2000 });
    expect(slow).toMatchObject({ timedOut: true, exitCode: 137 });
    expect(slow.stdout.trim()).toMatch(/toolgate-stderr-[^/]+\/stderr$/);
    expect(existsSync(dirname(slow.stdout.trim()))).toBe(false);
  });

  it('does not wait long for a process that escaped the group and holds stderr', async () => {
    // The escaped process holds stderr until the test lets it go, after the call has returned: a call
    // that waited for it would never return. The shell ends only once setsid has left the group.
    const left = join(root, 'left');
    const released = join(root, 'released');
    const gone = join(root, 'gone');
    const result = await run({
      command: `setsid sh -c 'touch ${left}; until [ -e ${released} ]; do sleep 0.05; done; touch ${gone}' & until [ -e ${left} ]; do sleep 0.05; done; echo started`,
    });
    writeFileSync(released, '');
    expect(result).toEqual({ exitCode: 0, stdout: 'started\n', stderr: '', timedOut: false });
    // It has seen the file and ended before the folder goes: removed first, it would wait for ever.
    await waitUntil(() => existsSync(gone), 'the escaped process to end');
  });

  it('kills the process group when aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 200);
    const exit = await runShell({ command: 'sleep 30', cwd: workspace, timeoutMs: WAIT_MS, env: {}, onOutput: () => undefined }, controller.signal);
    expect(exit).toEqual({ exitCode: 137, timedOut: false, backend: 'pty' });
  });

  it('runs nothing of a command whose call was withdrawn as it started, before its process group was made', async () => {
    const marker = join(workspace, 'ran.txt');
    // Aborted already: nothing is started (a kill after the fork would race the shell's first words).
    const exit = await runShell({ command: `touch ${marker}; sleep 30`, cwd: workspace, timeoutMs: WAIT_MS, env: {}, onOutput: () => undefined }, AbortSignal.abort());
    expect(exit).toEqual({ exitCode: 137, timedOut: false, backend: 'pty' });
    expect(existsSync(marker)).toBe(false);
  });
});

describe('shell_exec run (pipes, where no FIFO can be made)', () => {
  let savedTmpdir: string | undefined;
  beforeEach(() => {
    savedTmpdir = process.env.TMPDIR;
    process.env.TMPDIR = join(root, 'no-such-folder');
  });
  afterEach(() => {
    if (savedTmpdir === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmpdir;
  });

  it('falls back to pipes, stdout and stderr still apart', async () => {
    const result = await run({ command: '[ -t 1 ] || echo out-pipe; echo err >&2; exit 4' });
    expect(result).toEqual({ exitCode: 4, stdout: 'out-pipe\n', stderr: 'err\n', timedOut: false });
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

  it('streams both streams to the Live view with terminal line ends', async () => {
    forcePipesForTesting(true);
    const chunks: string[] = [];
    // stderr is written only once the test has heard stdout: the two pipes are read in no set order.
    const heard = join(root, 'heard');
    await run(
      { command: `echo out; until [ -e ${heard} ]; do sleep 0.05; done; echo err >&2`, timeoutMs: WAIT_MS },
      { emit: (chunk) => (chunks.push(chunk), writeFileSync(heard, '')) },
    );
    expect(chunks.join('')).toBe('out\r\nerr\r\n');
  });
});
