// Prints what a call costs the audit log (records and bytes per call) and the built-in echo's
// latency and 16-agent throughput through a real gate: `node bench/recordsPerCall.mjs [runs]`.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadInternal } from './loadInternal.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const runs = Number(process.argv[2] ?? 1);
const [{ measureRecordsPerCall }] = await loadInternal(root, ['bench/recordsPerCall.ts']);
for (let run = 0; run < runs; run++) {
  const measured = await measureRecordsPerCall();
  console.log(JSON.stringify(measured));
}
