// Team mode through one real nats-server (started here, as the team specs start it): 3 gates (createGate
// with --team) with BENCH_TEAM_AGENTS agents each making write_file calls that ask, and one approver's
// team console with no gate. Timed: a prompt raised on a gate → on the remote console (p95 ≤ 100 ms), and
// the remote decision → the call's prompt settled on its gate (p95 ≤ 100 ms). And what team mode adds to an
// auto-allowed call (read_file) on a gate, beside the same gate without a team, alternated (p50 ≤ +5 %).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGate, type Gate } from '../main/gate/createGate';
import { loadTeamCredentials } from '../main/team/teamCredentials';
import { TeamMode } from '../main/team/teamMode';
import { startNatsServer } from '../test/team/natsServer';
import { percentile, type BenchSection } from './benchResult';

const GATES = ['g0', 'g1', 'g2'] as const;

async function makeGate(root: string, name: string, team?: { url: string; file: string }): Promise<Gate> {
  const workspace = join(root, `${name}-workspace`);
  mkdirSync(workspace, { recursive: true });
  writeFileSync(join(workspace, 'read.txt'), 'hello\n');
  return createGate({
    home: join(root, `${name}-home`),
    workspace,
    approvalTimeoutMs: 60_000,
    maxPendingPerSession: 1000,
    ...(team ? { team: { url: team.url, credentials: loadTeamCredentials(team.file), log: () => undefined } } : {}),
  });
}

/** Prompt → remote console, and remote decision → settled, for every prompt the agents raise. */
export async function measureTeamLatency(agents: number, callsPerAgent: number, allowedCalls: number): Promise<BenchSection[]> {
  const root = mkdtempSync(join(tmpdir(), 'toolgate-bench-team-'));
  const server = await startNatsServer('bench', { g0: ['gate'], g1: ['gate'], g2: ['gate'], g3: ['gate'], carol: ['approver'] });
  const gates = new Map<string, Gate>();
  const carol = new TeamMode({ url: server.url, credentials: loadTeamCredentials(server.members.get('carol')!.file), log: () => undefined }).start();
  try {
    for (const name of GATES) gates.set(name, await makeGate(root, name, { url: server.url, file: server.members.get(name)!.file }));
    await Promise.all([...gates.values()].map((gate) => gate.team!.whenOnline()));
    await carol.whenOnline();
    const raisedAt = new Map<string, number>();
    const decidedAt = new Map<string, number>();
    const toConsole: number[] = [];
    const toCall: number[] = [];
    for (const gate of gates.values()) {
      gate.events.subscribe('approvalRequested', (request) => raisedAt.set(request.approvalId, performance.now()));
      gate.events.subscribe('approvalResolved', (outcome) => {
        const decided = decidedAt.get(outcome.approvalId);
        if (decided !== undefined) toCall.push(performance.now() - decided);
      });
    }
    const handled = new Set<string>();
    carol.onChange(() => {
      for (const prompt of carol.listPrompts({ waitingOnly: true })) {
        const { approvalId, bindingHash } = prompt.request;
        if (handled.has(approvalId)) continue;
        handled.add(approvalId);
        const raised = raisedAt.get(approvalId);
        if (raised !== undefined) toConsole.push(performance.now() - raised);
        decidedAt.set(approvalId, performance.now());
        void carol.decide({ gate: prompt.gate, approvalId, bindingHash, decision: 'approve' }, () => Promise.reject(new Error('no gate')));
      }
    });
    await Promise.all(
      [...gates.entries()].flatMap(([name, gate]) =>
        Array.from({ length: agents }, async (_, agent) => {
          for (let i = 0; i < callsPerAgent; i++) {
            const answer = await gate.executor.call({ tool: 'write_file', arguments: { path: `${name}-${agent}-${i}.txt`, content: `${i}\n` }, source: 'test', agentSession: `${name}-agent-${agent}` });
            if (!answer.ok) throw new Error(`a team-approved write failed: ${JSON.stringify(answer.error)}`);
          }
        }),
      ),
    );

    // Auto-allowed read_file on a gate with and without a team, in alternating blocks.
    // Two fresh gates, one in the team: the gates above wrote hundreds of records already.
    const bare = await makeGate(root, 'bare');
    const teamed = await makeGate(root, 'g3', { url: server.url, file: server.members.get('g3')!.file });
    await teamed.team!.whenOnline();
    const withTeam: number[] = [];
    const without: number[] = [];
    const timeRead = async (gate: Gate, into: number[]) => {
      const started = performance.now();
      const answer = await gate.executor.call({ tool: 'read_file', arguments: { path: 'read.txt' }, source: 'test' });
      into.push(performance.now() - started);
      if (!answer.ok) throw new Error(`an allowed read failed: ${JSON.stringify(answer.error)}`);
    };
    for (let warm = 0; warm < 30; warm++) await Promise.all([timeRead(bare, []), timeRead(teamed, [])]);
    for (let block = 0; block < allowedCalls / 50; block++) {
      for (let i = 0; i < 50; i++) await timeRead(block % 2 === 0 ? teamed : bare, block % 2 === 0 ? withTeam : without);
      for (let i = 0; i < 50; i++) await timeRead(block % 2 === 0 ? bare : teamed, block % 2 === 0 ? without : withTeam);
    }
    await bare.close();
    await teamed.close();
    return [
      {
        title: `team mode: ${GATES.length} gates × ${agents} agents, ${toConsole.length} prompts through one nats-server, approved on a remote console`,
        rows: [
          { label: 'prompt raised → on the remote console', samples: toConsole },
          { label: 'remote decision → settled at its gate', samples: toCall },
        ],
        notes: [`${toCall.length} of ${toConsole.length} decisions reached their gate; each prompt is one stream message and one key-value create`],
        targets: [
          { name: 'prompt → remote console, p95', measured: percentile(toConsole, 95), unit: 'ms', holdsWhen: 'at-most', limit: 100 },
          { name: 'remote decision → the call, p95', measured: percentile(toCall, 95), unit: 'ms', holdsWhen: 'at-most', limit: 100 },
        ],
      },
      {
        title: `team mode on an auto-allowed call: read_file, ${withTeam.length} calls each, alternated`,
        rows: [
          { label: 'gate in a team', samples: withTeam },
          { label: 'gate alone', samples: without },
        ],
        differences: [['gate in a team', 'gate alone']],
        notes: ['an allowed call publishes nothing: only prompts and checkpoints go to the team'],
        targets: [{ name: 'auto-allowed read_file, p50, in a team ÷ alone', measured: percentile(withTeam, 50), baseline: percentile(without, 50), unit: 'ms', holdsWhen: 'at-most', limit: 1.05 }],
      },
    ];
  } finally {
    await carol.close();
    for (const gate of gates.values()) await gate.close();
    await server.close();
    rmSync(root, { recursive: true, force: true });
  }
}
