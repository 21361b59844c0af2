import { createHash } from 'node:crypto';
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Which project policy files the person has trusted, by path and content hash, kept in the state
 * folder (never in the workspace, where an agent could write it). A file that changes after it
 * was trusted is untrusted again until `toolgate policy trust` is run once more.
 */

/** The trust record of a state folder. */
export function trustFile(home: string): string {
  return join(home, 'trusted-policies.json');
}

/** The hash a trusted file's content is recorded by. */
export function contentHash(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function readTrust(home: string): Record<string, string> {
  try {
    const raw = JSON.parse(readFileSync(trustFile(home), 'utf8')) as unknown;
    return typeof raw === 'object' && raw !== null && !Array.isArray(raw) ? (raw as Record<string, string>) : {};
  } catch {
    return {};
  }
}

/** Whether this exact content of the file at `path` was trusted. */
export function isTrusted(home: string, path: string, text: string): boolean {
  return readTrust(home)[path] === contentHash(text);
}

/** Records the file's current content as trusted; written atomically. Returns the hash. */
export function trustProjectFile(home: string, path: string): string {
  const hash = contentHash(readFileSync(path, 'utf8'));
  const trust = { ...readTrust(home), [path]: hash };
  const temp = `${trustFile(home)}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(trust, null, 2)}\n`, { mode: 0o600 });
  renameSync(temp, trustFile(home));
  return hash;
}
