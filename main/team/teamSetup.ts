import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import type { NatsConnection } from '@nats-io/transport-node';
import { teamNames } from './teamNames';

/** How long JetStream drops a republished message with a msg id it saw: a gate offline longer may send a prompt twice (consoles merge them by id). */
export const DEDUP_WINDOW_MS = 60 * 60_000;
/** How long prompts and their ends are kept: a day of a team's prompts. */
export const PROMPTS_MAX_AGE_MS = 24 * 60 * 60_000;
/** Checkpoints kept per gate: the newest is what `audit verify --team` needs; older ones show the history. */
export const CHECKPOINTS_PER_GATE = 1000;

const ms = (millis: number) => millis * 1_000_000;

/**
 * Creates (or leaves as they are) a team's streams and buckets. Run once by the team's admin
 * (`toolgate team init`): members have no right to create, change or delete them.
 */
export async function setUpTeam(connection: NatsConnection, team: string): Promise<void> {
  const names = teamNames(team);
  const jsm = await jetstreamManager(connection);
  await ensureStream(jsm, {
    name: names.promptsStream,
    subjects: [`toolgate.${team}.prompts.*`, `toolgate.${team}.ended.*`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: ms(PROMPTS_MAX_AGE_MS),
    duplicate_window: ms(DEDUP_WINDOW_MS),
    max_msg_size: 256 * 1024,
  });
  await ensureStream(jsm, {
    name: names.checkpointsStream,
    subjects: [`toolgate.${team}.checkpoints.*`],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_msgs_per_subject: CHECKPOINTS_PER_GATE,
    duplicate_window: ms(DEDUP_WINDOW_MS),
    max_msg_size: 16 * 1024,
    // What the others witnessed stays: nobody deletes or purges a checkpoint.
    deny_delete: true,
    deny_purge: true,
  });
  const kvm = new Kvm(connection);
  // One value per prompt key is all a decision needs: the first write wins, later ones are refused.
  await kvm.create(names.decisionsBucket, { history: 1, ttl: PROMPTS_MAX_AGE_MS, maxValueSize: 16 * 1024, storage: StorageType.File });
  await kvm.create(names.policyBucket, { history: 10, maxValueSize: 256 * 1024, storage: StorageType.File });
}

async function ensureStream(jsm: JetStreamManager, config: Parameters<JetStreamManager['streams']['add']>[0]): Promise<void> {
  try {
    await jsm.streams.info(config.name!);
  } catch {
    await jsm.streams.add(config);
  }
}
