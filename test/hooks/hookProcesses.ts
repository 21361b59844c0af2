/** Claude Code's side of the hook, as real processes: the hook command fed its JSON, and bash running what the hook answered. */
import { spawn } from 'node:child_process';
import { CLI, cliEnv } from '../integration/helpers';

/** The answer a hook printed, parsed. */
export interface HookRun {
  code: number | null;
  answer: {
    hookSpecificOutput?: { hookEventName: string; permissionDecision: string; permissionDecisionReason: string; updatedInput?: Record<string, unknown> };
  };
  stdout: string;
}

/** Runs `toolgate hook claude-code` with these stdin bytes and this state folder. */
export function runHook(home: string, stdin: string): Promise<HookRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [CLI, 'hook', 'claude-code'], { env: cliEnv(home), stdio: 'pipe' });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      try {
        resolveRun({ code, answer: JSON.parse(stdout), stdout });
      } catch {
        reject(new Error(`the hook printed no JSON: ${JSON.stringify(stdout)}`));
      }
    });
    child.stdin.end(stdin);
  });
}

/** How a bash command line ended. */
export interface BashRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command line with real bash in `cwd`, as Claude Code's Bash tool does, with these extra environment variables. */
export function runBash(command: string, cwd: string, env: Record<string, string> = {}): Promise<BashRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn('bash', ['-c', command], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (status) => resolveRun({ status, stdout, stderr }));
  });
}
