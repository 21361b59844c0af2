import { UsageError, flag, intFlag } from './argv';
import { openAuditLog } from './auditLog';
import { parseCommandLine, subcommandOf } from './commandSpec';
import { commandSpec } from './commandSpecs';
import type { Io } from './commands';

/** `toolgate audit verify|list|key|prove|replay|export`: checks the log, prints records, the checkpoint key or a proof, replays a call, exports calls. */
export async function auditCommand(argv: string[], io: Io): Promise<number> {
  const subSpec = subcommandOf(commandSpec('audit'), argv);
  if (!subSpec) throw new UsageError('audit takes `verify`, `list`, `key`, `prove`, `replay` or `export`');
  const args = parseCommandLine(subSpec, argv, `audit ${subSpec.name}`);
  // Each subcommand's code is loaded when it runs: verify needs no replay (the gate's tools), list no checkpoint code.
  if (subSpec.name === 'verify') {
    const [{ loadFastBlake3 }, { auditVerifyCommand }] = await Promise.all([import('../audit/fastBlake3'), import('./auditVerify')]);
    // The WebAssembly hash reads a large log several times faster; it loads once, before the walk.
    await loadFastBlake3();
    return auditVerifyCommand(args, io);
  }
  if (subSpec.name === 'key') return (await import('./auditProof')).auditKeyCommand(args, io);
  if (subSpec.name === 'prove') return (await import('./auditProof')).auditProveCommand(args, io);
  if (subSpec.name === 'replay') return (await import('./auditReplay')).auditReplayCommand(args, io);
  if (subSpec.name === 'export') {
    const [{ auditExportCommand }, { iterateCalls }] = await Promise.all([import('./auditExport'), import('../audit/explorerQuery')]);
    return auditExportCommand(args, io, { calls: iterateCalls, stdout: process.stdout });
  }
  const store = openAuditLog(io);
  if (!store) return 2;
  try {
    const records = store.list({ limit: intFlag(args, 'limit', 1, 100_000) ?? 20 }).reverse();
    if (flag(args, 'json')) io.out(`${JSON.stringify(records, null, 2)}\n`);
    else {
      for (const record of records) {
        io.out(`${String(record.seq).padStart(6)}  ${record.time}  ${record.kind.padEnd(18)} ${record.callId}  ${JSON.stringify(record.payload).slice(0, 120)}\n`);
      }
    }
    return 0;
  } finally {
    store.close();
  }
}
