// What a person feels of the CLI: one `toolgate hook claude-code` answer (Claude Code runs it before and
// after every tool call) with a gate running and the call allowed by a rule, and `toolgate --help`,
// each beside `node -e 0` (Node's own start, the floor) in the same run, alternated one by one.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { toolgateRoot } from '../main/state/paths';
import { percentile, startScript, type BenchSection } from './benchResult';

/** A command line timed, with its stdin. */
interface Timed {
  label: string;
  args: string[];
  stdin?: string;
  /** What its stdout must hold, so a failure is not timed as a fast answer. */
  expect: RegExp;
}

/** Wall time (ms) of one run of `node ARGS`, from spawn to exit; throws when its output is not the expected one. */
function timeOnce(timed: Timed, env: NodeJS.ProcessEnv): number {
  const started = performance.now();
  const run = spawnSync(process.execPath, timed.args, { cwd: toolgateRoot(), env, input: timed.stdin ?? '', encoding: 'utf8' });
  const elapsed = performance.now() - started;
  if (!timed.expect.test(run.stdout)) throw new Error(`${timed.label} printed ${JSON.stringify(run.stdout.slice(0, 300))} (exit ${run.status}): ${run.stderr.slice(0, 300)}`);
  return elapsed;
}

/** Peak RSS (MB) of one run of `node ARGS`, read by the process itself as it exits (an untimed run). */
function peakRssMb(timed: Timed, env: NodeJS.ProcessEnv): number {
  const report = 'data:text/javascript,process.on("exit",()=>process.stderr.write(`\\npeak-rss ${process.resourceUsage().maxRSS}\\n`))';
  const run = spawnSync(process.execPath, ['--import', report, ...timed.args], { cwd: toolgateRoot(), env, input: timed.stdin ?? '', encoding: 'utf8' });
  const kb = Number(/peak-rss (\d+)/.exec(run.stderr)?.[1]);
  return kb / 1024;
}

/** `runs` timed runs of each command, alternated; the hook against a gate that allows a Read by a user policy rule. */
export async function measureHookStart(runs: number): Promise<BenchSection> {
  const home = mkdtempSync(join(tmpdir(), 'toolgate-bench-home-'));
  const workspace = mkdtempSync(join(tmpdir(), 'toolgate-bench-ws-'));
  writeFileSync(join(workspace, 'README.md'), '# bench\n');
  writeFileSync(join(home, 'policy.json'), JSON.stringify({ allow: ['read_file(**)'] }, null, 2));
  const gate = await startScript('bin/toolgate.js', ['serve', '--workspace', workspace, '--port', '0'], { TOOLGATE_HOME: home }, /MCP\s+(\S+)\n/);
  try {
    const env = { ...process.env, TOOLGATE_HOME: home };
    const fixture = readFileSync(join(toolgateRoot(), 'test/fixtures/claude-code/pre-read.json'), 'utf8').replaceAll('${WORKSPACE}', workspace);
    const floor: Timed = { label: 'node -e 0 (baseline)', args: ['-e', '0'], expect: /^$/ };
    const hook: Timed = { label: 'toolgate hook claude-code, gate running, allowed by a rule', args: ['bin/toolgate.js', 'hook', 'claude-code'], stdin: fixture, expect: /"permissionDecision":"allow".*allowed `read_file\(\*\*\)`/ };
    const help: Timed = { label: 'toolgate --help', args: ['bin/toolgate.js', '--help'], expect: /toolgate/ };
    const hookFloor: Timed = { label: 'the floor: stdin over the gate\'s socket, bare CommonJS (no target)', args: ['bench/fixtures/hookFloor.cjs'], stdin: fixture, expect: hook.expect };
    const all = [floor, hook, help, hookFloor];
    const decided = spawnSync(process.execPath, hook.args, { cwd: toolgateRoot(), env, input: fixture, encoding: 'utf8' }).stdout;
    const samples = all.map(() => [] as number[]);
    for (const timed of all) timeOnce(timed, env);
    for (let run = 0; run < runs; run++) for (const [index, timed] of all.entries()) samples[index]!.push(timeOnce(timed, env));
    const [floorP50, hookP50, helpP50, hookFloorP50] = samples.map((list) => percentile(list, 50)) as [number, number, number, number];
    const rss = all.map((timed) => peakRssMb(timed, env));
    return {
      title: `The hook and the CLI's start beside Node's own, ${runs} runs each, alternated one by one (wall time from spawn to exit)`,
      rows: all.map((timed, index) => ({ label: timed.label, samples: samples[index]! })),
      notes: [
        `the hook's answer: ${decided.trim()}`,
        `the floor (bench/fixtures/hookFloor.cjs) is what any Node hook pays to ask the gate: ${(hookFloorP50 / floorP50).toFixed(2)}× node -e 0 at p50; the hook is ${(hookP50 / hookFloorP50).toFixed(2)}× the floor (ES module loading, the state folder's files, checks of the input and answer)`,
        `peak RSS: ${all.map((timed, index) => `${timed.label.replace(/ \(baseline\)$/, '')} ${rss[index]!.toFixed(0)} MB`).join(', ')}`,
      ],
      targets: [
        { name: 'hook answer (gate running, allowed by a rule), p50 ÷ node -e 0', measured: hookP50, baseline: floorP50, unit: 'ms', holdsWhen: 'at-most', limit: 2 },
        { name: 'toolgate --help, p50 ÷ node -e 0', measured: helpP50, baseline: floorP50, unit: 'ms', holdsWhen: 'at-most', limit: 3 },
      ],
    };
  } finally {
    gate.child.kill('SIGTERM');
    if (gate.child.exitCode === null && gate.child.signalCode === null) await new Promise((resolve) => gate.child.once('exit', resolve));
    rmSync(home, { recursive: true, force: true });
    rmSync(workspace, { recursive: true, force: true });
  }
}
