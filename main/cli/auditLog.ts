import { existsSync } from 'node:fs';
import { AuditStore } from '../audit/auditStore';
import { statePaths } from '../state/paths';
import type { Io } from './commands';

/** What the audit commands say when the state folder has no log yet. */
export function noAuditLog(io: Pick<Io, 'home'>): string {
  return `no audit log at ${statePaths(io.home).audit}: nothing has run with TOOLGATE_HOME=${io.home} yet`;
}

/** The state folder's log, read-only; undefined (and said on stderr) when there is none yet. */
export function openAuditLog(io: Io): AuditStore | undefined {
  const paths = statePaths(io.home);
  if (!existsSync(paths.audit)) {
    io.err(`${noAuditLog(io)}\n`);
    return undefined;
  }
  return new AuditStore({ path: paths.audit, headPath: paths.auditHead, readonly: true });
}
