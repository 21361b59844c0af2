import { createHash } from 'node:crypto';
import { closeSync, lstatSync, readdirSync, readlinkSync, readSync, type Stats } from 'node:fs';
import { join, relative } from 'node:path';
import type { Preview } from '../../shared/approval';
import { GateError } from '../../shared/errors';
import { hashCanonical } from '../../shared/hash';
import { fileKind, openRegularFile, specialKind } from './regularFile';

/** Entries a delete preview lists; the totals and the content hash count the rest. */
export const MAX_LISTED_ENTRIES = 2000;
/** Entries a delete preview binds; a bigger tree is refused, since what would go cannot be shown. */
export const MAX_BOUND_ENTRIES = 10_000;
/** File bytes a delete preview hashes; files past it are bound by inode and change time instead. */
export const MAX_HASHED_BYTES = 64 * 1024 * 1024;
const CHUNK_BYTES = 1024 * 1024;

type DeletePreview = Extract<Preview, { kind: 'delete' }>;
type PreviewEntry = DeletePreview['entries'][number];

/** What a delete would remove: the preview's listing and totals, and with `bind` the content hash. */
export type DeleteSurvey = Omit<DeletePreview, 'kind' | 'path'>;

/** The type a delete preview shows for an entry. */
export function entryType(stats: Stats): PreviewEntry['type'] {
  const kind = fileKind(stats);
  return kind === 'file' || kind === 'directory' || kind === 'symlink' ? kind : 'other';
}

/**
 * Everything that would go, parents before what they hold, names sorted: the same tree gives the
 * same survey. With `bind` (the dry run the person is shown, and its re-take before the delete
 * runs) every entry's content is bound into `contentHash`: a file's SHA-256 while the byte budget
 * lasts, then its inode, size and change time (which no one can set back); a symlink's target; a
 * special file's kind (never opened). So a same-size edit after the prompt changes the hash and the
 * delete is refused. A tree of more than MAX_BOUND_ENTRIES entries is refused when binding.
 */
export function surveyDelete(workspace: string, absolute: string, stats: Stats, requested: string, bind: boolean): DeleteSurvey {
  const entries: PreviewEntry[] = [];
  const bound: unknown[] = [];
  let totalEntries = 0;
  let totalBytes = 0;
  let hashBudget = MAX_HASHED_BYTES;
  let unhashedFiles = 0;
  const stack: Array<{ absolute: string; stats: Stats }> = [{ absolute, stats }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    const type = entryType(entry.stats);
    const bytes = type === 'file' ? entry.stats.size : 0;
    const path = relative(workspace, entry.absolute);
    totalEntries++;
    totalBytes += bytes;
    if (bind && totalEntries > MAX_BOUND_ENTRIES) throw tooLargeToShow(requested);
    const listed: PreviewEntry = { path, type, bytes };
    const kind = specialKind(entry.stats);
    if (kind) listed.kind = kind;
    if (bind) {
      let content: Record<string, unknown> = {};
      if (type === 'file') {
        const hashed = bytes <= hashBudget ? sha256OfFile(entry.absolute, path) : undefined;
        if (hashed !== undefined) {
          hashBudget -= bytes;
          listed.sha256 = hashed;
          content = { sha256: hashed };
        } else {
          unhashedFiles++;
          content = { ino: entry.stats.ino, ctimeMs: entry.stats.ctimeMs, mtimeMs: entry.stats.mtimeMs };
        }
      } else if (type === 'symlink') {
        content = { target: readlinkSync(entry.absolute) };
      }
      bound.push({ path, type, bytes, ...(kind ? { kind } : {}), ...content });
    }
    if (entries.length < MAX_LISTED_ENTRIES) entries.push(listed);
    if (type !== 'directory') continue;
    const children = readdirSync(entry.absolute).sort().reverse();
    for (const name of children) {
      const child = join(entry.absolute, name);
      stack.push({ absolute: child, stats: lstatSync(child) });
    }
  }
  if (!bind) return { entries, totalEntries, totalBytes };
  return { entries, totalEntries, totalBytes, contentHash: hashCanonical(bound), ...(unhashedFiles > 0 ? { unhashedFiles } : {}) };
}

/** SHA-256 of a file's bytes, read through openRegularFile; undefined when it cannot be read (it is then bound by identity). */
function sha256OfFile(absolute: string, path: string): string | undefined {
  let opened;
  try {
    opened = openRegularFile(absolute, path);
  } catch {
    return undefined;
  }
  try {
    const hash = createHash('sha256');
    const chunk = Buffer.alloc(CHUNK_BYTES);
    for (let position = 0; ; ) {
      const read = readSync(opened.fd, chunk, 0, CHUNK_BYTES, position);
      if (read === 0) break;
      hash.update(chunk.subarray(0, read));
      position += read;
    }
    return hash.digest('hex');
  } catch {
    return undefined;
  } finally {
    closeSync(opened.fd);
  }
}

function tooLargeToShow(requested: string): GateError {
  return new GateError(
    'EQUOTA',
    `${requested} holds more than ${MAX_BOUND_ENTRIES} entries, too many to show a person what a delete would remove; ` +
      'delete its subfolders one call at a time',
    { path: requested, maxEntries: MAX_BOUND_ENTRIES },
  );
}
