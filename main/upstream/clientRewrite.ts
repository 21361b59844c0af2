import { createHash } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyEdits, findNodeAtLocation, modify } from 'jsonc-parser';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { writeFileAtomically } from '../state/atomicFile';
import { toolgateRoot } from '../state/paths';
import { ensureHome, writePrivateFile } from '../state/stateFolder';
import type { ClientServers } from './clientConfigs';
import { formattingOf, parseJsoncTree } from './jsoncText';

/**
 * `servers import --rewrite` and `servers undo`: a client's `mcpServers` replaced by one entry that
 * runs Toolgate's stdio bridge, so its agent reaches its servers only through the gate, and put back.
 * The rest of the client's file is left byte for byte; a backup is written beside it first and the
 * rewrite recorded in the state folder, so undo restores the file exactly.
 */

/** One rewrite of a client config, as recorded. */
export const RewriteRecordSchema = z.object({
  /** The client it was for (`claude-code`, or `file`). */
  client: z.string(),
  /** The config file rewritten. */
  file: z.string(),
  /** The copy of the file as it was, beside it. */
  backup: z.string(),
  /** When, as ISO 8601 UTC. */
  rewrittenAt: z.string(),
  /** sha256 of the file before and after, to tell whether it changed since. */
  originalSha256: z.string(),
  rewrittenSha256: z.string(),
});
export type RewriteRecord = z.infer<typeof RewriteRecordSchema>;

const RewritesFileSchema = z.object({ rewrites: z.array(RewriteRecordSchema) });

/** The record of rewrites not yet undone. */
export function rewritesFilePath(home: string): string {
  return join(home, 'client-rewrites.json');
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function readRewrites(home: string): RewriteRecord[] {
  const path = rewritesFilePath(home);
  if (!existsSync(path)) return [];
  const parsed = RewritesFileSchema.safeParse(JSON.parse(readFileSync(path, 'utf8')));
  if (!parsed.success) throw new GateError('EVALIDATION', `${path} is not a record of client rewrites Toolgate wrote: move it aside (the backups beside each client file are untouched)`);
  return parsed.data.rewrites;
}

function writeRewrites(home: string, rewrites: RewriteRecord[]): void {
  ensureHome(home);
  writePrivateFile(rewritesFilePath(home), `${JSON.stringify({ rewrites }, null, 2)}\n`);
}

/** The entry a client runs to reach the gate: this Toolgate's `mcp` bridge, by absolute paths (no global install needed). */
export function bridgeEntry(home: string): { command: string; args: string[]; env: Record<string, string> } {
  return { command: process.execPath, args: [join(toolgateRoot(), 'bin', 'toolgate.js'), 'mcp'], env: { TOOLGATE_HOME: home } };
}

/** `2026-11-27T00:14:12.345Z` as `20261127T001412Z`, for a file name. */
function compactUtc(date: Date): string {
  return date.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Replaces the client's `mcpServers` with the bridge alone: the backup is written first (same mode,
 * never over an existing file), the rewrite recorded, then the file replaced atomically with its
 * mode kept. A client already rewritten and not undone is refused.
 */
export function rewriteClientConfig(home: string, client: ClientServers, now = new Date()): RewriteRecord {
  const { config, bytes, text } = client;
  const pending = readRewrites(home).find((record) => record.file === config.path);
  if (pending) {
    throw new GateError('EVALIDATION', `${config.path} was already rewritten at ${pending.rewrittenAt} (backup ${pending.backup}): run \`toolgate servers undo --from ${config.client === 'file' ? config.path : config.client}\` first`);
  }
  const rewritten = applyEdits(text, modify(text, ['mcpServers'], { toolgate: bridgeEntry(home) }, { formattingOptions: formattingOf(text) }));
  // A config that is a symlink (dotfiles) is rewritten where it points, and stays a symlink.
  const target = realpathSync(config.path);
  const mode = statSync(target).mode & 0o7777;
  const backup = `${config.path}.toolgate-backup-${compactUtc(now)}`;
  writeFileSync(backup, bytes, { flag: 'wx', mode });
  chmodSync(backup, mode);
  const record: RewriteRecord = {
    client: config.client,
    file: config.path,
    backup,
    rewrittenAt: now.toISOString(),
    originalSha256: sha256(bytes),
    rewrittenSha256: sha256(Buffer.from(rewritten, 'utf8')),
  };
  writeRewrites(home, [...readRewrites(home), record]);
  writeFileAtomically(target, rewritten, mode);
  return record;
}

/** What an undo did. */
export interface UndoReport {
  record: RewriteRecord;
  /** `restored`: the file is the backup again; `servers-restored`: only its mcpServers (--force); `unchanged`: it never was rewritten. */
  outcome: 'restored' | 'servers-restored' | 'unchanged';
}

/** The `mcpServers` value node of a JSON text, if it has one. */
function serversNodeOf(text: string, source: string) {
  const tree = parseJsoncTree(text, source);
  return tree && findNodeAtLocation(tree, ['mcpServers']);
}

/** The backup's `mcpServers` put back into the file's current text, the rest of it as it is now. */
function withServersOf(current: string, backup: string, record: RewriteRecord): string {
  const backupServers = serversNodeOf(backup, record.backup);
  if (!backupServers) throw new GateError('EVALIDATION', `${record.backup} holds no "mcpServers": it is not the backup Toolgate wrote; nothing was restored`);
  const written = backup.slice(backupServers.offset, backupServers.offset + backupServers.length);
  const currentServers = serversNodeOf(current, record.file);
  if (currentServers) return current.slice(0, currentServers.offset) + written + current.slice(currentServers.offset + currentServers.length);
  return applyEdits(current, modify(current, ['mcpServers'], JSON.parse(written) as unknown, { formattingOptions: formattingOf(current) }));
}

/**
 * Undoes the last rewrite (of `file`, when given). A file as Toolgate left it gets its backup back
 * byte for byte (and the backup is removed); a file changed since is refused, untouched, unless
 * `force`, which puts back only its `mcpServers` from the backup and keeps the other changes.
 */
export function undoRewrite(home: string, options: { file?: string; force?: boolean } = {}): UndoReport {
  const rewrites = readRewrites(home);
  const index = rewrites.findLastIndex((record) => options.file === undefined || record.file === options.file);
  if (index < 0) {
    throw new GateError('EVALIDATION', options.file === undefined ? 'Toolgate has rewritten no client config (or every rewrite was undone)' : `Toolgate has no rewrite of ${options.file} to undo`);
  }
  const record = rewrites[index]!;
  const forget = () => writeRewrites(home, rewrites.filter((_, other) => other !== index));
  const target = realpathSync(record.file);
  const current = readFileSync(target);
  if (sha256(current) === record.originalSha256) {
    forget();
    return { record, outcome: 'unchanged' };
  }
  if (!existsSync(record.backup)) throw new GateError('EVALIDATION', `the backup ${record.backup} is gone, so ${record.file} cannot be restored; its servers are now in servers.json (\`toolgate servers list\`)`);
  const backup = readFileSync(record.backup);
  if (sha256(current) === record.rewrittenSha256) {
    writeFileAtomically(target, backup, statSync(record.backup).mode & 0o7777);
    forget();
    rmSync(record.backup);
    return { record, outcome: 'restored' };
  }
  if (!options.force) {
    throw new GateError(
      'EVALIDATION',
      `${record.file} changed since Toolgate rewrote it at ${record.rewrittenAt}, so it was not restored (restoring would lose those changes). ` +
        `Its servers as they were are in ${record.backup}. Pass --force to put back only its "mcpServers" from there, keeping your other changes.`,
    );
  }
  writeFileAtomically(target, withServersOf(current.toString('utf8'), backup.toString('utf8'), record), statSync(target).mode & 0o7777);
  forget();
  return { record, outcome: 'servers-restored' };
}
