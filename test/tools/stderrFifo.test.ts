import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openStderrFifo } from '../../main/tools/shell/stderrFifo';

afterEach(() => vi.useRealTimers());

/** Runs a shell command with its stderr on the FIFO, and resolves when it has exited. */
function runWithStderr(path: string, command: string): Promise<void> {
  return new Promise((resolve) => spawn('sh', ['-c', `exec 2>${path}; ${command}`], { stdio: 'ignore' }).once('exit', () => resolve()));
}

describe('the stderr FIFO of a shell', () => {
  // With the clock stopped, the 1 s drain grace can never pass: close() can only return on the FIFO's end.
  it('closes on the end of its last writer, without waiting out the grace, when nobody ever wrote', async () => {
    const chunks: string[] = [];
    const fifo = openStderrFifo((chunk) => chunks.push(chunk))!;
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    await fifo.close();
    expect(chunks).toEqual([]);
    expect(existsSync(dirname(fifo.path))).toBe(false);
  });

  it('reads what a shell wrote, and closes on its end without waiting out the grace', async () => {
    const chunks: string[] = [];
    const fifo = openStderrFifo((chunk) => chunks.push(chunk))!;
    await runWithStderr(fifo.path, 'echo first >&2; echo second >&2');
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    await fifo.close();
    expect(chunks.join('')).toBe('first\nsecond\n');
  });
});
