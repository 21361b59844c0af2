import type { CheckpointReport } from '../audit/checkpointCheck';
import { checkAgainstCheckpoint } from '../audit/checkpointCheck';
import { checkpointOrigin } from '../audit/checkpointWriter';
import { parseVerifierKey, SignedNoteError } from '../audit/signedNote';
import { UsageError } from '../cli/argv';
import { openLogReadOnly } from '../cli/auditCheckpoint';
import { readSettingsFile, settingsPath } from '../settings/settings';
import { connectTeam } from './teamConnection';
import { loadTeamCredentials } from './teamCredentials';
import { witnessedCheckpoints } from './teamCheckpoints';

/**
 * `audit verify --team`: checks the local log against the newest checkpoint of it the team holds,
 * by the verifier key of the first one the team witnessed (or `--key`): whoever rewrites this
 * machine's log and checkpoint folder cannot change what the team's stream keeps.
 */
export async function teamCheckpointReport(home: string, pinnedKey: string | undefined): Promise<CheckpointReport> {
  const file = settingsPath(home);
  const settings = readSettingsFile(file);
  if (!settings.team || !settings.teamCreds) {
    throw new UsageError(`audit verify --team reads the team from ${file}: add "team" (its NATS server) and "teamCreds" (this gate's credentials file)`);
  }
  const credentials = loadTeamCredentials(settings.teamCreds);
  const store = openLogReadOnly(home);
  try {
    const logId = store.logId();
    if (!logId) throw new UsageError('this audit log has no id (written before checkpoints existed), so no checkpoint can name it');
    const connection = await connectTeam({ url: settings.team, credentials }).catch((error: unknown) => {
      throw new UsageError(`cannot reach the team server ${settings.team}: ${(error as Error).message}`);
    });
    let witnessed;
    try {
      witnessed = await witnessedCheckpoints(connection, credentials.team, credentials.member, checkpointOrigin(logId));
    } finally {
      await connection.close();
    }
    const label = `the team's newest checkpoint of ${credentials.member}`;
    if (!witnessed) return { ok: false, problem: 'nothing-signed', reason: `the team ${credentials.team} holds no checkpoint of this log from ${credentials.member}: start the gate with --checkpoint-dir in the team, and it publishes each one` };
    let verifier;
    try {
      verifier = parseVerifierKey(pinnedKey ?? witnessed.first.verifierKey);
    } catch (error) {
      if (error instanceof SignedNoteError) throw new UsageError(`${pinnedKey ? '--key' : 'the key the team witnessed'}: ${error.message}`);
      throw error;
    }
    return checkAgainstCheckpoint(store, witnessed.newest.note, label, verifier);
  } finally {
    store.close();
  }
}
