// The timings the unit tests no longer assert: each of these is held there to a bound on work (rows
// read into JavaScript, bytes looked at, members visited, folders listed), which holds on a busy
// machine and a quiet one alike; here the same work is timed, against the limits the tests once had.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { AuditStore } from '../main/audit/auditStore';
import { argumentBoundBreach, shownOutput } from '../main/executor/steps/recordedArguments';
import { protectedWriteGrants, scanGuarded } from '../main/hosts/workspaceGuard';
import { jsonShape } from '../main/server/jsonShape';
import { writeOpenCallLog } from '../test/audit/openCallLog';
import { percentile, type BenchSection, type BenchTarget } from './benchResult';

/** Milliseconds each of `rounds` runs of `once` takes, after `prepare` (untimed) before each. */
function timeRounds(rounds: number, once: () => unknown, prepare: () => void = () => undefined): number[] {
  const samples: number[] = [];
  for (let round = 0; round < rounds; round++) {
    prepare();
    const started = performance.now();
    once();
    samples.push(performance.now() - started);
  }
  return samples;
}

/** Times the work the unit tests bound, `rounds` times each (the 100,000-record log is written once per round). */
export function measureTestedWork(rounds: number): BenchSection {
  const scratch = mkdtempSync(join(tmpdir(), 'toolgate-bench-work-'));
  try {
    const rows: Array<{ label: string; samples: number[]; limit: number; test: string }> = [];

    const paths = { path: join(scratch, 'audit.db'), headPath: join(scratch, 'audit.head') };
    const reset = () => {
      rmSync(paths.path, { force: true });
      rmSync(`${paths.path}-wal`, { force: true });
      rmSync(`${paths.path}-shm`, { force: true });
      rmSync(paths.headPath, { force: true });
      writeOpenCallLog(paths, 100_000);
    };
    const startup = () => {
      const store = new AuditStore(paths);
      try {
        return store.recordInterruptedCalls();
      } finally {
        store.close();
      }
    };
    rows.push({ label: 'open a 100,000-record log and end its open call', samples: timeRounds(rounds, startup, reset), limit: 1500, test: 'auditStartup' });

    const flood = Buffer.from(`{"items":[${'0,'.repeat(5_000_000)}0]}`);
    rows.push({ label: 'jsonShape stops in a 10 MB flood', samples: timeRounds(rounds * 10, () => jsonShape(flood, { cost: 1000, objectKeys: 100 })), limit: 50, test: 'jsonShape' });

    const items = new Array(10_000_000).fill(0);
    rows.push({ label: 'argument bounds refuse a 10,000,000-element array', samples: timeRounds(rounds * 10, () => argumentBoundBreach({ items })), limit: 50, test: 'argumentBounds' });

    const huge = { page: 'p'.repeat(16 * 1024 * 1024), links: Array.from({ length: 100_000 }, (_, i) => `https://example.com/${i}`) };
    rows.push({ label: 'the Live view’s form of a 16 MiB output', samples: timeRounds(rounds * 10, () => shownOutput(huge)), limit: 100, test: 'argumentBounds' });

    const workspace = join(scratch, 'workspace');
    for (let folder = 0; folder < 100; folder++) {
      for (let file = 0; file < 50; file++) {
        const path = join(workspace, `src/m${folder}/f${file}.ts`);
        mkdirSync(dirname(path), { recursive: true });
        writeFileSync(path, 'x');
      }
    }
    mkdirSync(join(workspace, '.git'), { recursive: true });
    writeFileSync(join(workspace, '.git/config'), 'x');
    const grants = protectedWriteGrants(['fs:read', 'fs:write']);
    rows.push({ label: 'protected-entry scan of 5,000 files', samples: timeRounds(rounds * 10, () => scanGuarded(workspace, grants)), limit: 100, test: 'workspaceGuard' });

    const targets: BenchTarget[] = rows.map(({ label, samples, limit }) => ({ name: `${label}, p50`, measured: percentile(samples, 50), unit: 'ms', holdsWhen: 'at-most', limit }));
    return {
      title: 'Work the unit tests bound by counts, timed here',
      rows: rows.map(({ label, samples }) => ({ label, samples })),
      notes: rows.map(({ label, test }) => `${label}: test/**/${test}.test.ts bounds its work, the limit here is the time it once asserted`),
      targets,
    };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
