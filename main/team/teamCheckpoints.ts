import { createHash } from 'node:crypto';
import { jetstreamManager, type MsgRequest } from '@nats-io/jetstream';
import type { NatsConnection } from '@nats-io/transport-node';
import { z } from 'zod';
import { parseCheckpoint } from '../audit/checkpoint';
import { splitNote } from '../audit/signedNote';
import { teamNames } from './teamNames';
import type { TeamMode } from './teamMode';

/** Largest checkpoint message (a signed note is a few hundred bytes). */
export const MAX_TEAM_CHECKPOINT_BYTES = 8 * 1024;

/** A gate's signed checkpoint as the team keeps it: the note, and the verifier key that checks it. */
export const TeamCheckpointMessageSchema = z
  .object({
    gate: z.string().max(32),
    /** The C2SP signed note: origin, tree size, root hash, signature. */
    note: z.string().max(4096),
    /** The checkpoint key's verifier key (NAME+HASH+KEY). */
    verifierKey: z.string().max(512),
    publishedAt: z.string().max(40),
  })
  .strict();
export type TeamCheckpointMessage = z.infer<typeof TeamCheckpointMessageSchema>;

/**
 * Hands the gate's signed checkpoints to its team: the checkpoint writer starts before the team is
 * joined, so the newest note waits here until then. Each is published with a msg id of its hash, so
 * the same checkpoint sent twice is kept once, and a different one for the same size is kept too.
 */
export class CheckpointWitness {
  private team?: TeamMode;
  private waiting?: { note: string; verifierKey: string };

  /** A checkpoint was written. */
  written(note: string, verifierKey: string): void {
    if (this.team) this.publish(this.team, note, verifierKey);
    else this.waiting = { note, verifierKey };
  }

  /** The team is joined: what waited goes out. */
  attach(team: TeamMode): void {
    this.team = team;
    if (this.waiting) this.publish(team, this.waiting.note, this.waiting.verifierKey);
    this.waiting = undefined;
  }

  private publish(team: TeamMode, note: string, verifierKey: string): void {
    const gate = team.options.credentials.member;
    const message: TeamCheckpointMessage = { gate, note, verifierKey, publishedAt: new Date().toISOString() };
    const id = createHash('sha256').update(note).digest('hex').slice(0, 32);
    team.link.publish(team.link.names.checkpoints(gate), JSON.stringify(message), `${gate}.checkpoint.${id}`);
  }
}

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
