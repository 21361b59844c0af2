import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import { GateError } from '../../../shared/errors';

/** What one program run is given. */
export interface ProgramRun {
  command: string;
  args: string[];
  /** Written to stdin, then stdin is closed; absent: stdin is closed at once. */
  stdin?: string;
  cwd: string;
  /** Bytes of stdout kept; past them the program is killed and the run says so. */
  maxStdoutBytes: number;
}

/** How a program ended. */
export interface ProgramExit {
  /** Its exit code; 128 + n when signal n ended it. */
  exitCode: number;
  stdout: string;
  /** The newest 64 KiB of stderr. */
  stderr: string;
  /** Whether stdout passed maxStdoutBytes (the program was killed there). */
  stdoutCut: boolean;
}

const STDERR_KEPT_BYTES = 64 * 1024;

/**
 * Runs a program with its arguments as they are (no shell: `shell` is off and the program is an
 * absolute path), in the tool process's own sandbox and environment. The gate's deadline and
 * memory bound hold the tool process and so this program too.
 */
export function runProgram(run: ProgramRun): Promise<ProgramExit> {
  return new Promise((resolve, reject) => {
    const child = spawn(run.command, run.args, { cwd: run.cwd, shell: false, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env } });
    const stdout: Buffer[] = [];
    let stdoutBytes = 0;
    let stdoutCut = false;
    let stderr = Buffer.alloc(0);
    child.stdout.on('data', (chunk: Buffer) => {
      if (stdoutCut) return;
      stdoutBytes += chunk.length;
      if (stdoutBytes > run.maxStdoutBytes) {
        stdoutCut = true;
        child.kill('SIGKILL');
        return;
      }
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr = Buffer.concat([stderr, chunk]);
      if (stderr.length > STDERR_KEPT_BYTES) stderr = stderr.subarray(stderr.length - STDERR_KEPT_BYTES);
    });
    // A program that exits without reading all of stdin closes the pipe: that is its business, not a failure.
    child.stdin.on('error', () => {});
    child.stdin.end(run.stdin ?? '');
    child.on('error', (error) => reject(new GateError('ERUNTIME', `${run.command} could not be started: ${error.message}`)));
    child.on('close', (code, signal) => {
      const exitCode = code ?? 128 + (signal ? constants.signals[signal] : 0);
      resolve({ exitCode, stdout: Buffer.concat(stdout).toString('utf8'), stderr: stderr.toString('utf8'), stdoutCut });
    });
  });
}
