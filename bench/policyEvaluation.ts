// Policy evaluation for 1,000 rules of every kind (shell, path, host, bare tool) across the user
// and managed layers, beside the tier policy alone on the same calls, in one run. The shell line
// is parsed once beforehand, as the executor does before the policy step; its parse is timed apart.
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolManifest } from '../shared/manifest';
import type { CallFacts } from '../main/policy/callParts';
import { PolicyEngine } from '../main/policy/policyEngine';
import { tierPolicy, type Policy } from '../main/policy/tierPolicy';
import { BUILTIN_TOOLS } from '../main/tools/builtinTools';
import type { BenchSection } from './benchResult';

/** 1,000 rules: a quarter each of shell, path, host and bare-tool rules, allows, asks and denies mixed. */
function thousandRules(): { user: unknown; managed: unknown } {
  const allow: string[] = [];
  const ask: string[] = [];
  const deny: string[] = [];
  for (let i = 0; i < 250; i++) {
    (i % 5 === 0 ? deny : allow).push(`shell_exec(tool${i} run *)`);
    (i % 7 === 0 ? ask : allow).push(`write_file(src/module${i}/**)`);
    allow.push(`http_fetch(domain:*.host${i}.example.com)`);
    deny.push(i % 2 === 0 ? `read_file(~/.secret${i}/**)` : `read_file(//opt/private${i}/**)`);
  }
  allow.push('shell_exec(git status)', 'shell_exec(npm run test *)', 'calculator');
  return { user: { allow, ask }, managed: { deny } };
}

/** The calls evaluated, round robin: a two-command shell line, a write, a fetch, a read and a bare tool. */
const CALLS: Array<{ tool: string; input: Record<string, unknown> }> = [
  { tool: 'shell_exec', input: { command: 'git status && npm run test -- --watch=false' } },
  { tool: 'write_file', input: { path: 'src/module249/deep/file.ts', content: '' } },
  { tool: 'http_fetch', input: { url: 'https://docs.host249.example.com/page' } },
  { tool: 'read_file', input: { path: 'README.md' } },
  { tool: 'calculator', input: { expression: '1+1' } },
];

function timeDecisions(policy: Policy, prepared: Array<{ manifest: ToolManifest; input: unknown; facts: CallFacts }>, count: number, samples?: number[]): void {
  for (let i = 0; i < count; i++) {
    const call = prepared[i % prepared.length]!;
    const started = performance.now();
    const decided = policy.decide(call.manifest, call.input, call.facts);
    samples?.push(performance.now() - started);
    if (!decided.decision) throw new Error('no decision');
  }
}

const micro = (samples: number[], p: number) => {
  const sorted = [...samples].sort((a, b) => a - b);
  return (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! * 1000).toFixed(1);
};

/** Times `calls` decisions each way, alternating in blocks so both see the same load. */
export async function measurePolicyEvaluation(calls: number, block: number, warmup: number): Promise<BenchSection> {
  const root = realpathSync(mkdtempSync(join(tmpdir(), 'toolgate-bench-policy-')));
  for (const folder of ['ws', 'home', 'etc']) mkdirSync(join(root, folder));
  const rules = thousandRules();
  writeFileSync(join(root, 'home', 'policy.json'), JSON.stringify(rules.user));
  writeFileSync(join(root, 'etc', 'policy.json'), JSON.stringify(rules.managed));
  const tools = (name: string) => BUILTIN_TOOLS.find((tool) => tool.manifest.name === name)?.manifest;
  try {
    const loadStarted = performance.now();
    const engine = await PolicyEngine.create({ tools, workspace: join(root, 'ws'), home: join(root, 'home'), userHome: join(root, 'me'), managedFile: join(root, 'etc', 'policy.json') });
    const loadMs = performance.now() - loadStarted;
    const ruleCount = engine.rulesInForce().length;
    if (engine.status().problems.length > 0) throw new Error(`bench policy refused: ${JSON.stringify(engine.status().problems)}`);
    const parseSamples: number[] = [];
    const prepared = [];
    for (const call of CALLS) {
      const manifest = tools(call.tool)!;
      const started = performance.now();
      const facts = await engine.prepare(manifest, call.input);
      if (manifest.name === 'shell_exec') parseSamples.push(performance.now() - started);
      prepared.push({ manifest, input: call.input, facts });
    }
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      await engine.prepare(prepared[0]!.manifest, prepared[0]!.input);
      parseSamples.push(performance.now() - started);
    }
    timeDecisions(engine, prepared, warmup);
    timeDecisions(tierPolicy, prepared, warmup);
    const engineSamples: number[] = [];
    const tierSamples: number[] = [];
    for (let done = 0; done < calls; done += block) {
      timeDecisions(engine, prepared, Math.min(block, calls - done), engineSamples);
      timeDecisions(tierPolicy, prepared, Math.min(block, calls - done), tierSamples);
    }
    engine.close();
    const engineLabel = `policy engine decide (${ruleCount} rules)`;
    const tierLabel = 'tier policy alone (baseline)';
    return {
      title: `Policy evaluation: ${ruleCount} rules in two layers, ${calls} decisions over ${CALLS.length} kinds of call`,
      rows: [
        { label: engineLabel, samples: engineSamples },
        { label: tierLabel, samples: tierSamples },
        { label: 'shell line parse before the decision (tree-sitter)', samples: parseSamples },
      ],
      differences: [[engineLabel, tierLabel]],
      notes: [
        `per call: policy engine p50 ${micro(engineSamples, 50)} µs, p99 ${micro(engineSamples, 99)} µs; tier policy p50 ${micro(tierSamples, 50)} µs, p99 ${micro(tierSamples, 99)} µs`,
        `loading and compiling the ${ruleCount} rules took ${loadMs.toFixed(1)} ms, once per file change, never per call`,
      ],
      targets: [
        {
          name: `policy engine decision, ${ruleCount} rules, p50`,
          measured: Number(micro(engineSamples, 50)),
          unit: 'µs',
          holdsWhen: 'at-most',
          limit: 50,
        },
      ],
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
