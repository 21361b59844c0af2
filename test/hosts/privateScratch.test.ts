import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../main/hosts/sandbox';
import { openGate, type Harness } from '../executor/gateHarness';

/**
 * A pure tool runs in a warm, reused sandboxed process: what one call leaves in /tmp or /dev/shm is
 * gone before the next call, and emptying them never reaches the workspace mounted below /tmp.
 */

const SCRATCH_TOOLS = resolve(__dirname, '../fixtures/tools/scratch.mjs');

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe.skipIf(detectSandbox('auto').kind === 'none')('private scratch folders of a reused tool process', () => {
  it('a note one call leaves in /tmp and /dev/shm is not there for the next, and the workspace under /tmp is untouched', async () => {
    harness = await openGate({ sandbox: 'require', toolModules: [SCRATCH_TOOLS], poolSize: 1 });
    expect(harness.workspace.startsWith('/tmp/')).toBe(true);
    writeFileSync(join(harness.workspace, 'kept.txt'), 'kept');
    const call = (note: string) => harness!.gate.executor.call({ tool: 'scratch_note', arguments: { note }, source: 'test' });
    const first = await call('from the first call');
    expect(first).toMatchObject({ ok: true, data: { tmp: null, shm: null } });
    const second = await call('from the second call');
    expect(second).toMatchObject({ ok: true, data: { tmp: null, shm: null } });
    // The same process served both: the notes were removed, not lost with a new sandbox.
    expect((second.data as { pid: number }).pid).toBe((first.data as { pid: number }).pid);
    expect(readFileSync(join(harness.workspace, 'kept.txt'), 'utf8')).toBe('kept');
  });

  it('a built-in call between two (whose process skips emptying: it writes nothing there) still finds them empty, as the next call does', async () => {
    harness = await openGate({ sandbox: 'require', toolModules: [SCRATCH_TOOLS], poolSize: 1 });
    const call = (note: string) => harness!.gate.executor.call({ tool: 'scratch_note', arguments: { note }, source: 'test' });
    const first = await call('before the echo');
    for (let i = 0; i < 3; i++) expect(await harness.gate.executor.call({ tool: 'echo', arguments: { text: `${i}` }, source: 'test' })).toMatchObject({ ok: true });
    const second = await call('after the echo');
    expect(second).toMatchObject({ ok: true, data: { tmp: null, shm: null } });
    expect((second.data as { pid: number }).pid).toBe((first.data as { pid: number }).pid);
  });

  it('a built-in call during which code an earlier tool left writes there is emptied after like any other call', async () => {
    harness = await openGate({ sandbox: 'require', toolModules: [SCRATCH_TOOLS], poolSize: 1 });
    const run = (tool: string, args: Record<string, unknown>) => harness!.gate.executor.call({ tool, arguments: args, source: 'test' });
    expect(await run('scratch_trap', { note: 'planted' })).toMatchObject({ ok: true });
    expect(await run('echo', { text: 'spring:planted' })).toMatchObject({ ok: true });
    expect(await run('scratch_note', { note: 'next' })).toMatchObject({ ok: true, data: { tmp: null, shm: null } });
  });
});
