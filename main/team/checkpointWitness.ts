import { createHash } from 'node:crypto';
import { z } from 'zod';
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
