import { jetstreamManager, type MsgRequest } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { parseCheckpoint } from '../audit/checkpoint';
import { splitNote } from '../audit/signedNote';
import { teamNames } from './teamNames';
import { MAX_TEAM_CHECKPOINT_BYTES, TeamCheckpointMessageSchema, type TeamCheckpointMessage } from './checkpointWitness';

/** The checkpoints the team holds of one gate's log: the first it witnessed and the newest. */
export interface WitnessedCheckpoints {
  first: TeamCheckpointMessage;
  newest: TeamCheckpointMessage;
}

/** Reads a checkpoint message; undefined when it is not one (too large, not JSON, not its schema, not a checkpoint note). */
function readCheckpointMessage(data: Uint8Array, gate: string, origin: string): TeamCheckpointMessage | undefined {
  if (data.length > MAX_TEAM_CHECKPOINT_BYTES) return undefined;
  try {
    const message = TeamCheckpointMessageSchema.parse(JSON.parse(new TextDecoder().decode(data)));
    if (message.gate !== gate || parseCheckpoint(splitNote(message.note).text).origin !== origin) return undefined;
    return message;
  } catch {
    return undefined;
  }
}

/**
 * The first and newest checkpoints of the log `origin` that the team's stream holds for `gate`
 * (undefined when it holds none). The first one's verifier key is the one the team witnessed before
 * any rewrite: nobody can delete or purge it.
 */
export async function witnessedCheckpoints(connection: NatsConnection, team: string, gate: string, origin: string): Promise<WitnessedCheckpoints | undefined> {
  const names = teamNames(team);
  const jsm = await jetstreamManager(connection);
  const subject = names.checkpoints(gate);
  let first: TeamCheckpointMessage | undefined;
  let seq = 1;
  // The stream keeps at most CHECKPOINTS_PER_GATE a gate: the walk to the first of this log is bounded.
  for (let step = 0; step < 1000 && !first; step++) {
    // The server takes next_by_subj with a sequence; the client's type lists it for direct gets only.
    const stored = await jsm.streams.getMessage(names.checkpointsStream, { seq, next_by_subj: subject } as unknown as MsgRequest).catch(() => null);
    if (!stored) break;
    first = readCheckpointMessage(stored.data, gate, origin);
    seq = stored.seq + 1;
  }
  if (!first) return undefined;
  const last = await jsm.streams.getMessage(names.checkpointsStream, { last_by_subj: subject }).catch(() => null);
  const newest = last ? readCheckpointMessage(last.data, gate, origin) : undefined;
  return { first, newest: newest ?? first };
}
