import { afterEach, describe, expect, it } from 'vitest';
import { createChildProcessHost } from '../../main/hosts/childProcessHost';
import { stderrEndMarker, type RunRequest } from '../../main/hosts/protocol';
import type { ToolProcess } from '../../main/hosts/toolProcess';
import { toolEnvironment } from '../../main/hosts/toolEnvironment';
import { builtAssets } from '../../main/state/paths';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

// A call's answer waits until its stderr has been read to the end marker the tool process writes
// after it (or for a short drain time when no marker comes). The marker may be left out only where
// the gate said it will not wait for one: a gate that waits must get it, or every such call waits
// out the drain time for lines that never come.

let host: ToolProcess | undefined;
let workspace: string | undefined;
afterEach(async () => {
  await host?.close();
  if (workspace) removeTempFolder(workspace);
  host = undefined;
  workspace = undefined;
});

/** A real tool process of the built entry; `events` lists, in arrival order, each stderr marker and each answer. */
async function startHost(): Promise<{ host: ToolProcess; events: string[]; answered: (callId: string) => Promise<void> }> {
  const events: string[] = [];
  const waiting = new Map<string, () => void>();
  const started = createChildProcessHost({
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    label: 'toolgate-tool-marker-test',
    onLog: (stream, line) => {
      for (const callId of ['waits-1', 'skips-1', 'waits-2']) if (stream === 'stderr' && line.endsWith(stderrEndMarker(callId))) events.push(`marker ${callId}`);
    },
  });
  await new Promise<void>((resolve) => {
    const stop = started.onMessage((message) => {
      const reply = message as { type: string; callId?: string };
      if (reply.type === 'ready') {
        stop();
        resolve();
      }
    });
  });
  started.onMessage((message) => {
    const reply = message as { type: string; callId?: string };
    if (reply.type !== 'result' || !reply.callId) return;
    events.push(`answer ${reply.callId}`);
    waiting.get(reply.callId)?.();
  });
  // The answer comes on the IPC channel, stderr on a pipe: give the pipe a moment after the answer.
  const answered = (callId: string) => new Promise<void>((resolve) => waiting.set(callId, () => setTimeout(resolve, 100)));
  return { host: started, events, answered };
}

function echo(callId: string, extra: Partial<RunRequest> = {}): RunRequest {
  return { type: 'run', callId, tool: 'echo', module: 'builtin', input: { text: 'hi' }, context: { workspace: workspace!, dryRun: false }, ...extra };
}

describe("the tool process's stderr end marker", () => {
  it('follows a built-in call the gate waits for, and is left out only where the gate said it will not wait', async () => {
    workspace = makeTempFolder();
    const started = await startHost();
    host = started.host;
    for (const [callId, extra] of [
      ['waits-1', {}],
      ['skips-1', { startsNothing: true }],
      ['waits-2', { startsNothing: false }],
    ] as const) {
      const answered = started.answered(callId);
      host.send(echo(callId, extra));
      await answered;
    }
    expect(started.events).toEqual(['marker waits-1', 'answer waits-1', 'answer skips-1', 'marker waits-2', 'answer waits-2']);
  });
});
