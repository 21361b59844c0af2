import { existsSync } from 'node:fs';
import { GateError } from '../../shared/errors';
import { AuditStore } from '../audit/auditStore';
import { checkpointKeyPath, createCheckpointKey, readCheckpointKey } from '../audit/checkpointKey';
import { checkpointOrigin } from '../audit/checkpointWriter';
import { inclusionProof, rootOf, verifyInclusion } from '../audit/merkle';
import { ensureHome } from '../state/stateFolder';
import { statePaths } from '../state/paths';
import { UsageError, flag, type ParsedArgs } from './argv';
import { auditKeyRotateCommand } from './auditKeyRotate';
import { noAuditLog } from './auditLog';
import type { Io } from './commands';
import { countOf } from '../../shared/plural';

/** `toolgate audit key [rotate]`: the verifier key of this state folder's checkpoints (made now if the gate never made it), or a new one recorded. */
export function auditKeyCommand(args: ParsedArgs, io: Io): number {
  const [, action, ...extra] = args.positionals;
  if (action === 'rotate' && extra.length === 0) return auditKeyRotateCommand(args, io);
  if (action !== undefined) throw new UsageError(`audit key takes nothing or \`rotate\`, not ${JSON.stringify(args.positionals.slice(1).join(' '))}`);
  for (const option of ['checkpoint-dir', 'reason', 'old-key']) {
    if (flag(args, option) !== undefined) throw new UsageError(`--${option} is for \`toolgate audit key rotate\``);
  }
  ensureHome(io.home);
  const existing = readCheckpointKey(io.home);
  if (!existing) {
    io.err(
      `no checkpoint key was in ${checkpointKeyPath(io.home)}, so a new one was made now. If a checkpoint folder holds checkpoints signed by an earlier key, ` +
        'a gate will not start with this one until `toolgate audit key rotate` records the change\n',
    );
  }
  io.out(`${(existing ?? createCheckpointKey(io.home, checkpointOrigin(logIdOf(io.home)))).verifierKey}\n`);
  return 0;
}

/**
 * The id of the state folder's audit log, which a new key is named by. A folder with no log yet (or
 * one from before log ids) gets it as a gate's first start would, so the key printed now is the one
 * the gate signs with.
 */
function logIdOf(home: string): string {
  const paths = statePaths(home);
  const open = (readonly: boolean) => {
    const store = new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly });
    try {
      return store.logId();
    } finally {
      store.close();
    }
  };
  const id = (existsSync(paths.audit) ? open(true) : undefined) ?? open(false);
  if (id === undefined) throw new GateError('ERUNTIME', `the audit log ${paths.audit} has no id after it was opened for writing`);
  return id;
}

/** `toolgate audit prove SEQ [--size N] [--json]`: an RFC 6962 inclusion proof of one record. */
export function auditProveCommand(args: ParsedArgs, io: Io): number {
  const [, seqText, ...extra] = args.positionals;
  if (seqText === undefined || extra.length > 0 || !/^[1-9][0-9]{0,15}$/.test(seqText)) {
    throw new UsageError(`prove takes one record number, e.g. toolgate audit prove 42${seqText === undefined ? '' : `, not ${JSON.stringify([seqText, ...extra].join(' '))}`}`);
  }
  const paths = statePaths(io.home);
  if (!existsSync(paths.audit)) throw new GateError('ENOTFOUND', noAuditLog(io));
  const store = new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly: true });
  let leaves: Buffer[];
  try {
    leaves = [...store.leafHashes()];
  } finally {
    store.close();
  }
  const sizeText = flag(args, 'size');
  const size = sizeText === undefined ? leaves.length : Number(sizeText);
  if (!Number.isSafeInteger(size) || size < 1 || size > leaves.length) throw new UsageError(`--size ${sizeText}: a tree size from 1 to ${leaves.length} (the log's records)`);
  const seq = Number(seqText);
  if (seq > size) throw new UsageError(`record ${seq} is not in a tree of ${countOf(size, 'record')}`);
  const proof = inclusionProof(leaves, seq - 1, size);
  const root = rootOf(leaves.slice(0, size));
  // Checked before it is printed: a proof that does not verify is never handed out.
  if (!verifyInclusion(seq - 1, size, leaves[seq - 1]!, proof, root)) throw new Error(`the inclusion proof of record ${seq} does not verify`);
  const result = { seq, leafIndex: seq - 1, treeSize: size, leafHash: leaves[seq - 1]!.toString('hex'), rootHash: root.toString('base64'), proof: proof.map((hash) => hash.toString('hex')) };
  if (flag(args, 'json') === 'true') io.out(`${JSON.stringify(result, null, 2)}\n`);
  else {
    io.out(
      [
        `record ${seq} (leaf index ${seq - 1}) in the tree of ${countOf(size, 'record')}`,
        `leaf hash  ${result.leafHash}   (SHA-256 of 0x00 and the record's canonical JSON)`,
        `root hash  ${result.rootHash}   (base64, as a checkpoint of ${countOf(size, 'record')} carries it)`,
        `proof      ${countOf(proof.length, 'hash', { plural: 'hashes' })}, leaf to root (RFC 6962 audit path):`,
        ...result.proof.map((hash) => `  ${hash}`),
        '',
      ].join('\n'),
    );
  }
  return 0;
}
