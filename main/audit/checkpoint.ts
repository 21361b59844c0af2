import { SignedNoteError } from './signedNote';
import { countOf } from '../../shared/plural';

/**
 * The C2SP tlog-checkpoint body (https://c2sp.org/tlog-checkpoint): the log's origin line, the tree
 * size in decimal, the base64 root hash, each on its own line, then optional extension lines.
 */
export interface Checkpoint {
  /** The log's unique name: `toolgate/<log id>` for a Toolgate audit log. */
  origin: string;
  /** How many records the tree held. */
  size: number;
  /** The RFC 6962 root hash of those records (32 bytes). */
  root: Buffer;
}

/** The checkpoint text, ready to be signed. */
export function formatCheckpoint(checkpoint: Checkpoint): string {
  return `${checkpoint.origin}\n${checkpoint.size}\n${checkpoint.root.toString('base64')}\n`;
}

/** Reads a checkpoint body; throws SignedNoteError('malformed') naming the line at fault. */
export function parseCheckpoint(text: string): Checkpoint {
  const lines = text.split('\n');
  lines.pop();
  const [origin, size, root] = lines;
  const fail = (why: string) => new SignedNoteError('malformed', `its checkpoint text ${why}`);
  if (lines.length < 3) throw fail(`has ${countOf(lines.length, 'line')}, not the 3 of origin, tree size and root hash`);
  if (!origin || /\s/.test(origin)) throw fail(`has an origin line ${JSON.stringify(origin)} that is empty or holds white space`);
  if (!/^(0|[1-9][0-9]{0,15})$/.test(size!) || !Number.isSafeInteger(Number(size))) throw fail(`has a tree size line ${JSON.stringify(size!.slice(0, 40))} that is not a decimal number`);
  const rootBytes = Buffer.from(root!, 'base64');
  if (rootBytes.length !== 32 || rootBytes.toString('base64') !== root) throw fail(`has a root hash line ${JSON.stringify(root!.slice(0, 60))} that is not 32 bytes in base64`);
  return { origin, size: Number(size), root: rootBytes };
}
