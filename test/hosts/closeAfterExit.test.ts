import { afterEach, expect, it, vi } from 'vitest';
import { createChildProcessHost } from '../../main/hosts/childProcessHost';
import type { ToolProcess } from '../../main/hosts/toolProcess';
import { toolEnvironment } from '../../main/hosts/toolEnvironment';
import { builtAssets } from '../../main/state/paths';

// Closing a tool process sends SIGTERM and, should it linger, SIGKILL after a grace of 2 s. Once it
// has exited, its pid is free for the machine's next process: nothing may be sent to that pid after
// the exit, or the late SIGKILL lands on whatever process was given the number meanwhile.

const CLOSE_GRACE_MS = 2000;

let host: ToolProcess | undefined;
afterEach(async () => {
  vi.restoreAllMocks();
  await host?.close();
  host = undefined;
});

async function readyToolProcess(): Promise<ToolProcess> {
  const started = createChildProcessHost({ entry: builtAssets().toolProcess, env: toolEnvironment(), label: 'toolgate-tool-close-test' });
  await new Promise<void>((resolve) => {
    const stop = started.onMessage((message) => {
      if ((message as { type: string }).type !== 'ready') return;
      stop();
      resolve();
    });
  });
  return started;
}

it('sends nothing to a closed tool process’s pid once it has exited, not even the SIGKILL its grace had set', async () => {
  host = await readyToolProcess();
  const pid = host.pid!;
  const kill = vi.spyOn(process, 'kill');
  await host.close();
  const atExit = kill.mock.calls.length;
  // The SIGTERM reached it: the close came from signals, not from the pipe.
  expect(kill.mock.calls.slice(0, atExit)).toContainEqual([pid, 'SIGTERM']);
  // Past the grace: the SIGKILL it had set would have gone out by now.
  await new Promise((resolve) => setTimeout(resolve, CLOSE_GRACE_MS + 300));
  const later = kill.mock.calls.slice(atExit).filter(([target]) => target === pid || target === -pid);
  expect(later).toEqual([]);
});

it('kills a tool process closed before it said it is ready at once, with no SIGTERM and no grace: no tool code ran in it yet', async () => {
  const kill = vi.spyOn(process, 'kill');
  host = createChildProcessHost({ entry: builtAssets().toolProcess, env: toolEnvironment(), label: 'toolgate-tool-close-test' });
  const pid = host.pid!;
  let saidReady = false;
  host.onMessage((message) => (saidReady ||= (message as { type: string }).type === 'ready'));
  await host.close();
  expect(saidReady).toBe(false);
  const signals = kill.mock.calls.filter(([target]) => target === pid || target === -pid).map(([, signal]) => signal);
  // Inside bubblewrap a SIGTERM finds none of the tool's processes while the sandbox is set up: closing waited out the grace.
  expect(signals[0]).toBe('SIGKILL');
  expect(signals).not.toContain('SIGTERM');
});
