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

/**
 * A real tool process of the built entry. `markers` lists the calls whose end marker its stderr
 * carried, in order; `markerOf(callId)` resolves once that call's marker has been read. stderr is
 * one ordered pipe, so a marker read for a later call means every earlier one written was read too.
 */
async function startHost(): Promise<{ host: ToolProcess; markers: string[]; markerOf: (callId: string) => Promise<void>; answerOf: (callId: string) => Promise<void> }> {
  const markers: string[] = [];
  const waiting = new Map<string, () => void>();
  const started = createChildProcessHost({
    entry: builtAssets().toolProcess,
    env: toolEnvironment(),
    label: 'toolgate-tool-marker-test',
    onLog: (stream, line) => {
      const at = line.indexOf(stderrEndMarker(''));
      if (stream !== 'stderr' || at < 0) return;
      const callId = line.slice(at + stderrEndMarker('').length);
      markers.push(callId);
      waiting.get(callId)?.();
    },
  });
  await new Promise<void>((resolve) => {
    const stop = started.onMessage((message) => {
      if ((message as { type: string }).type !== 'ready') return;
      stop();
      resolve();
    });
  });
  const answers = new Map<string, () => void>();
  started.onMessage((message) => {
    const reply = message as { type: string; callId?: string };
    if (reply.callId !== undefined && reply.type !== 'output') answers.get(reply.callId)?.();
  });
  const markerOf = (callId: string) => new Promise<void>((resolve) => waiting.set(callId, resolve));
  const answerOf = (callId: string) => new Promise<void>((resolve) => answers.set(callId, resolve));
  return { host: started, markers, markerOf, answerOf };
}

function echo(callId: string, extra: Partial<RunRequest> = {}): RunRequest {
  return { type: 'run', callId, tool: 'echo', module: 'builtin', input: { text: 'hi' }, context: { workspace: workspace!, dryRun: false }, ...extra };
}

describe("the tool process's stderr end marker", () => {
  it('follows a built-in call the gate waits for, and is left out only where the gate said it will not wait', async () => {
    workspace = makeTempFolder();
    const started = await startHost();
    host = started.host;
    // One call at a time, as the pool sends them: each call's marker is written before its answer.
    for (const [callId, extra] of [
      ['waits-1', {}],
      ['skips-1', { startsNothing: true }],
      ['waits-2', { startsNothing: false }],
    ] as const) {
      const answered = started.answerOf(callId);
      host.send(echo(callId, extra));
      await answered;
    }
    // A health check always ends with its marker: once it is read, every marker written before it was too.
    const last = started.markerOf('health-last');
    host.send({ type: 'health', callId: 'health-last', tool: 'echo', module: 'builtin', workspace });
    await last;
    expect(started.markers).toEqual(['waits-1', 'waits-2', 'health-last']);
  });
});
