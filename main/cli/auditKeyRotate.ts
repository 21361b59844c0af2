import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { AuditStore } from '../audit/auditStore';
import { rotateCheckpointKey } from '../audit/checkpointRotation';
import { parseVerifierKey, SignedNoteError, verifierId, type NoteVerifier } from '../audit/signedNote';
import { readSettingsFile, settingsPath } from '../settings/settings';
import { statePaths } from '../state/paths';
import { UsageError, flag, type ParsedArgs } from './argv';
import { personName, runningGate } from './auditVerify';
import type { Io } from './commands';

/** The checkpoint folder: --checkpoint-dir, else settings.json's checkpointDir. */
function checkpointFolder(args: ParsedArgs, home: string): string {
  const given = flag(args, 'checkpoint-dir');
  const dir = given === undefined ? readSettingsFile(settingsPath(home)).checkpointDir : resolve(given);
  if (dir === undefined) throw new UsageError('audit key rotate needs the checkpoint folder whose key changes: --checkpoint-dir DIR (or "checkpointDir" in settings.json)');
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new UsageError(`--checkpoint-dir ${dir}: no such folder`);
  return dir;
}

function oldKeyFlag(args: ParsedArgs): NoteVerifier | undefined {
  const given = flag(args, 'old-key');
  if (given === undefined) return undefined;
  try {
    return parseVerifierKey(given);
  } catch (error) {
    if (error instanceof SignedNoteError) throw new UsageError(`--old-key: ${error.message}`);
    throw error;
  }
}

/**
 * `toolgate audit key rotate --checkpoint-dir DIR [--reason TEXT] [--old-key VERIFIERKEY]`: a
 * person's act from the command line (nothing an agent's MCP token reaches), with the gate stopped.
 * Exit 0 rotated, 2 refused (the log does not match the old key's checkpoints, a gate running) or a usage error.
 */
export function auditKeyRotateCommand(args: ParsedArgs, io: Io): number {
  const dir = checkpointFolder(args, io.home);
  const oldKey = oldKeyFlag(args);
  const paths = statePaths(io.home);
  if (!existsSync(paths.audit)) throw new UsageError(`no audit log at ${paths.audit}: there is no log whose checkpoint key could change`);
  const gate = runningGate(io.home);
  if (gate) {
    io.err(`toolgate audit key rotate: a gate is running for ${io.home} (pid ${gate.pid}) and is the log's only writer; stop it first\n`);
    return 2;
  }
  const store = new AuditStore({ path: paths.audit, headPath: paths.auditHead });
  let rotation;
  try {
    rotation = rotateCheckpointKey(store, { home: io.home, dir, by: personName(), reason: flag(args, 'reason') ?? 'not given', oldKey });
  } finally {
    store.close();
  }
  const old = verifierId(rotation.previous);
  io.out(
    [
      `rotated: checkpoints of this log are signed by ${verifierId(rotation.key.verifier)} from ${rotation.fromSize} records on.`,
      `  ${old} signed trees of up to ${rotation.fromSize} records; its checkpoints stay verifiable with it.`,
      rotation.previousSigned
        ? `  ${old} signed the change too.`
        : `  ${old} did not sign the change (its private key is not in the state folder): the change rests on this record alone, and \`audit verify --checkpoint-dir\` says so.`,
      ...(rotation.replacedStranger ? [`  The key file held ${rotation.replacedStranger}, which no entry of the key history names: a new key replaced it.`] : []),
      `  Recorded in the log as record ${rotation.record.seq} (key-rotated) and in ${rotation.entryFile};`,
      `  ${rotation.checkpointFile} now signs the log's ${rotation.record.seq} records with the new key.`,
      `Keep a copy of the new verifier key away from this machine: ${rotation.key.verifierKey}`,
      '',
    ].join('\n'),
  );
  return 0;
}
