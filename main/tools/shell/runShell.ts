import { spawn } from 'node:child_process';
import { closeSync, constants as fsConstants, existsSync, openSync } from 'node:fs';
import { constants } from 'node:os';
import type { IPty } from 'node-pty';
import { readRestBeforeClose } from './ptyDrain';
import { forcePipes, loadPty } from './ptyLoader';
import { openStderrFifo } from './stderrFifo';

/**
 * Runs one command line under a shell, its stdout on a pseudo-terminal (node-pty, seed 003's host
 * backend) so programs colour and line-buffer their output as they would for a person, its stderr
 * on a private FIFO so the two stay apart; every process the command starts is in one process
 * group, killed on the deadline and when the shell ends. Where node-pty cannot load or no FIFO can
 * be made, plain pipes stand in for both.
 */

/** How to run a command. */
export interface ShellRun {
  /** The command line, passed to `bash -c` (or `sh -c` without bash). */
  command: string;
  /** Absolute working directory (already confined to the workspace). */
  cwd: string;
  /** Deadline in ms; past it the process group is killed. */
  timeoutMs: number;
  /** Environment of the shell. */
  env: Record<string, string>;
  /**
   * Called with each piece of output as it arrives (raw: escape sequences kept). 'terminal' is
   * stdout read from the pseudo-terminal (CRLF line ends); 'stdout' is stdout read from a pipe.
   */
  onOutput(chunk: string, stream: 'terminal' | 'stdout' | 'stderr'): void;
}

/** How a command ended. */
export interface ShellExit {
  /** The shell's exit code; 128 + n when a signal n ended it (the shell's own convention). */
  exitCode: number;
  /** Whether the deadline killed it. */
  timedOut: boolean;
  /** Which backend ran it. */
  backend: 'pty' | 'pipes';
}

/** The shell used: bash where there is one, POSIX sh otherwise. */
export function shellProgram(): { path: string; args: string[] } {
  for (const candidate of ['/bin/bash', '/usr/bin/bash']) {
    // --noprofile --norc: no rc file of the workspace or the home folder runs first.
    if (existsSync(candidate)) return { path: candidate, args: ['--noprofile', '--norc', '-c'] };
  }
  return { path: '/bin/sh', args: ['-c'] };
}

/** Kills a process group; a group that is gone already is fine. */
function killGroup(pid: number | undefined, leaderToo = false): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
    return;
  } catch {
    // Already gone, or not made yet: see below.
  }
  if (!leaderToo) return;
  try {
    // A pty's child makes its group (setsid) only once it runs: a kill that comes sooner finds no
    // group, and the command would start unstopped. The child itself is there from the fork, and
    // has started nothing yet.
    process.kill(pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

/** Runs the command to its end or deadline; rejects only when it could not be started. */
export async function runShell(run: ShellRun, abort?: AbortSignal): Promise<ShellExit> {
  const pty = loadPty();
  // Withdrawn before it started: nothing is started. A kill sent after the fork would race the
  // shell, which on a busy machine may run the command's first words before the kill lands.
  if (abort?.aborted) return { exitCode: 128 + constants.signals.SIGKILL, timedOut: false, backend: pty ? 'pty' : 'pipes' };
  const stderr = pty ? openStderrFifo((chunk) => run.onOutput(chunk, 'stderr')) : null;
  if (!pty || !stderr) return runWithPipes(run, abort);
  try {
    return await runInPty(pty, run, stderr.path, abort);
  } finally {
    // Resolves once all of stderr is read; the FIFO's folder is gone after it.
    await stderr.close();
  }
}

/**
 * The shell sends its stderr to the FIFO (the wrapper's $1), then replaces itself with the very
 * shell invocation the command would have had ("$0" "$@"). The command is an argument, never part
 * of this text, so nothing in it is interpreted here.
 */
const STDERR_TO_FIFO = 'exec 2>"$1" || exit 126; shift; exec "$0" "$@"';

function runInPty(pty: typeof import('node-pty'), run: ShellRun, stderrFifo: string, abort?: AbortSignal): Promise<ShellExit> {
  const shell = shellProgram();
  const argv = [...shell.args, STDERR_TO_FIFO, shell.path, stderrFifo, ...shell.args, run.command];
  return new Promise((resolve, reject) => {
    let child: IPty;
    try {
      // The pty's child is a session leader: its pid is the group every process of the command joins.
      child = pty.spawn(shell.path, argv, {
        name: 'xterm-256color',
        cols: 120,
        rows: 30,
        cwd: run.cwd,
        env: { ...run.env, TERM: 'xterm-256color' },
      });
    } catch (error) {
      reject(error);
      return;
    }
    // Linux reports EIO on the pty as soon as the last process closes its side, and node-pty then
    // drops what was still buffered (the end of a long output). Holding the terminal's side open
    // here keeps the pty readable until node-pty has read everything and reports the exit.
    // ptsName is on the Unix terminal, not in the IPty typing.
    const holder = holdTerminal((child as IPty & { ptsName?: string }).ptsName);
    const guard = guardGroup(child.pid, run.timeoutMs, abort);
    child.onData((chunk) => run.onOutput(chunk, 'terminal'));
    readRestBeforeClose(child, (chunk) => run.onOutput(chunk, 'terminal'));
    child.onExit(({ exitCode, signal }) => {
      if (holder !== undefined) closeSync(holder);
      resolve({ exitCode: signal ? 128 + signal : exitCode, timedOut: guard.end(), backend: 'pty' });
    });
  });
}

/**
 * Kills the command's process group at its timeout or when the call is aborted. `end()` (once the
 * shell has exited) kills what it left running in the background and says whether time ran out.
 */
function guardGroup(pid: number | undefined, timeoutMs: number, abort: AbortSignal | undefined): { end(): boolean } {
  let timedOut = false;
  // Before the shell has exited (and been reaped), its pid is still its own: a kill may go to it too.
  const stop = (): void => killGroup(pid, true);
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, timeoutMs);
  abort?.addEventListener('abort', stop, { once: true });
  if (abort?.aborted) stop();
  return {
    end: () => {
      clearTimeout(timer);
      abort?.removeEventListener('abort', stop);
      // What the command left running in the background; the shell itself is gone.
      killGroup(pid);
      return timedOut;
    },
  };
}

/** Opens the terminal side of a pty (without making it our controlling terminal); undefined when it cannot. */
function holdTerminal(ptsName: string | undefined): number | undefined {
  if (!ptsName) return undefined;
  try {
    return openSync(ptsName, fsConstants.O_RDWR | fsConstants.O_NOCTTY);
  } catch {
    return undefined;
  }
}

function runWithPipes(run: ShellRun, abort?: AbortSignal): Promise<ShellExit> {
  const shell = shellProgram();
  return new Promise((resolve, reject) => {
    // detached: the shell leads a new process group, so the whole group can be killed.
    const child = spawn(shell.path, [...shell.args, run.command], {
      cwd: run.cwd,
      env: run.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const guard = guardGroup(child.pid, run.timeoutMs, abort);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => run.onOutput(chunk, 'stdout'));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => run.onOutput(chunk, 'stderr'));
    child.once('error', (error) => {
      guard.end();
      reject(error);
    });
    child.once('close', (code, signal) => {
      const signalNumber = signal ? constants.signals[signal] : 0;
      resolve({ exitCode: code ?? 128 + signalNumber, timedOut: guard.end(), backend: 'pipes' });
    });
  });
}

/** Makes runShell use pipes, as where node-pty is missing (tests of the fallback). */
export function forcePipesForTesting(force: boolean): void {
  forcePipes(force);
}
