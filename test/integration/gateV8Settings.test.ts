/**
 * `toolgate serve` runs with V8 settings of its own (scripts/gate-v8-flags.mjs): its heap bounded
 * under load, and its per-call code optimized within its first few hundred calls instead of
 * thousands. bin/toolgate.js puts them on V8's command line by replacing the process once; a gate
 * started with settings of its own keeps those.
 */
import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { GATE_V8_FLAGS } from '../../scripts/gate-v8-flags.mjs';
import { spawnServe } from './cliProcesses';
import { makeTempDirs } from './helpers';

/** The command line a process runs with, as the kernel has it. */
const commandLine = (pid: number) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);

it('a gate runs with its heap and tiering settings, in the same process it was started as', async () => {
  const dirs = makeTempDirs();
  const gate = await spawnServe(dirs).catch((error: unknown) => {
    dirs.remove();
    throw error;
  });
  try {
    const line = commandLine(gate.child.pid!);
    expect(line).toEqual(expect.arrayContaining(GATE_V8_FLAGS));
    expect(GATE_V8_FLAGS.some((flag) => flag.startsWith('--invocation-count-for-turbofan='))).toBe(true);
    // The settings come before the script, where V8 reads them, and the gate's own arguments follow it.
    const script = line.findIndex((part) => part.endsWith('toolgate.js'));
    expect(line.indexOf(GATE_V8_FLAGS[0]!)).toBeLessThan(script);
    expect(line.slice(script + 1, script + 2)).toEqual(['serve']);
  } finally {
    await gate.stop();
    dirs.remove();
  }
});
