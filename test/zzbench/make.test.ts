import { it } from 'vitest';
import { rmSync } from 'node:fs';
import { writeSyntheticLog } from '../../bench/syntheticAudit';
it('make', async () => {
  rmSync('/tmp/export-bench-home', { recursive: true, force: true });
  const t = performance.now();
  console.log(JSON.stringify(await writeSyntheticLog({ home: '/tmp/export-bench-home', calls: Number(process.env.CALLS ?? 200000) })), performance.now() - t);
}, 900_000);
