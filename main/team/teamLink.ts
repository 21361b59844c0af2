import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream, type JetStreamClient } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import type { TeamStatus } from '../../shared/team';
import { connectTeam, type TeamEndpoint } from './teamConnection';
import { teamNames, type TeamNames } from './teamNames';

/** Something to publish once the server is reachable: a stream message (deduplicated by its id) or a decision's compare-and-set. */
export type Outgoing =
  | { kind: 'message'; subject: string; data: string; msgId: string; sending?: () => void }
  | { kind: 'decision'; key: string; data: string };

/** Stream messages sent before their acknowledgements are awaited. */
const IN_FLIGHT = 64;

/** How long a closing link goes on sending what is queued. */
const CLOSE_DRAIN_MS = 2_000;

/** Messages kept while the server is away; past it the oldest go (and the log says how many). */
export const MAX_QUEUED = 10_000;

/** What a link calls back into: once online (each time), and when its state changes. */
export interface TeamLinkHooks {
  /** Runs after each (re)connection, before the queue is sent: watches and consumers start here. */
  onOnline?: (link: TeamLink) => Promise<void>;
  /** The state changed (online, offline, queue length). */
  onChange?: () => void;
  /** A decision queued offline found its key taken when sent (the key and what was there). */
  onDecisionConflict?: (key: string) => void;
  log: (message: string) => void;
}

/**
 * One member's connection to the team's server. It connects in the background and keeps trying, so
 * a gate starts and works without it; what must be published waits in order in a bounded queue and
 * goes out when the server is back. Stream messages carry a msg id, so a message sent twice across a
 * reconnection is stored once (JetStream deduplication). Decisions go before messages: a decision
 * taken offline is in its key before the team can see the prompt it answers.
 */
export class TeamLink {
  readonly names: TeamNames;
  private connection?: NatsConnection;
  private js?: JetStreamClient;
  private kvs = new Map<string, KV>();
  private online = false;
  private offlineReason = 'connecting';
  private readonly decisions: Outgoing[] = [];
  private readonly messages: Outgoing[] = [];
  private dropped = 0;
  private pumping = false;
  private closed = false;
  private readonly onlineWaiters = new Set<() => void>();

  constructor(
    readonly endpoint: TeamEndpoint,
    private readonly hooks: TeamLinkHooks,
  ) {
    this.names = teamNames(endpoint.credentials.team);
  }

  /** Starts connecting; returns at once. */
  start(): void {
    void this.run();
  }

  /** Whether the server is reachable now. */
  get isOnline(): boolean {
    return this.online;
  }

  /** The status a console and the banner show. */
  status(approver: boolean): TeamStatus {
    const { team, member } = this.endpoint.credentials;
    const queued = this.decisions.length + this.messages.length;
    return {
      state: this.online ? 'online' : 'offline',
      team,
      member,
      server: this.endpoint.url,
      approver,
      queued,
      ...(this.online ? {} : { reason: this.offlineReason }),
    };
  }

  /** Resolves once online (now, or when the server is reached). */
  whenOnline(): Promise<void> {
    if (this.online) return Promise.resolve();
    return new Promise((resolveOnline) => this.onlineWaiters.add(resolveOnline));
  }

  /** The JetStream client (throws while offline). */
  jetstream(): JetStreamClient {
    if (!this.js || !this.connection) throw new Error('the team server is not reachable');
    return this.js;
  }

  /** A key-value bucket, opened once per connection. */
  async bucket(name: string): Promise<KV> {
    const open = this.kvs.get(name);
    if (open) return open;
    const kv = await new Kvm(this.jetstream()).open(name);
    this.kvs.set(name, kv);
    return kv;
  }

  /** Queues a stream message and sends it as soon as the server is reachable; `sending` is told when it first goes out. */
  publish(subject: string, data: string, msgId: string, sending?: () => void): void {
    this.enqueue(this.messages, { kind: 'message', subject, data, msgId, ...(sending ? { sending } : {}) });
  }

  /** Queues a decision's compare-and-set (a decision taken offline on a prompt the team never saw). */
  queueDecision(key: string, data: string): void {
    this.enqueue(this.decisions, { kind: 'decision', key, data });
  }

  /**
   * Sends what is queued while the server answers (at most CLOSE_DRAIN_MS: the last checkpoint, the
   * withdrawn prompts), then closes the connection; what is left is lost (it is in the local audit). Idempotent.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    const deadline = Date.now() + CLOSE_DRAIN_MS;
    while (this.online && this.decisions.length + this.messages.length > 0 && Date.now() < deadline) {
      await this.pump();
      await new Promise((resolveSoon) => setTimeout(resolveSoon, 10));
    }
    this.closed = true;
    this.online = false;
    for (const wake of this.onlineWaiters) wake();
    await this.connection?.close().catch(() => undefined);
  }

  private enqueue(queue: Outgoing[], item: Outgoing): void {
    if (this.closed) return;
    queue.push(item);
    if (this.decisions.length + this.messages.length > MAX_QUEUED) {
      (this.messages.length > 0 ? this.messages : this.decisions).shift();
      if (this.dropped++ === 0) this.hooks.log(`the team server has been away long enough that more than ${MAX_QUEUED} messages waited: the oldest are dropped (they stay in the local audit)`);
    }
    this.hooks.onChange?.();
    void this.pump();
  }

  private async run(): Promise<void> {
    let connection: NatsConnection | undefined;
    // Tried again every second until it answers; each new reason is logged once. Not the client's
    // own wait for a first connection: that one cannot be called off, and would keep a stopping gate alive.
    while (!connection) {
      try {
        connection = await connectTeam(this.endpoint);
      } catch (error) {
        const reason = `cannot reach the team server ${this.endpoint.url}: ${(error as Error).message}`;
        if (reason !== this.offlineReason) {
          this.offlineReason = reason;
          this.hooks.log(`${reason}; trying again every second, prompts are answered at this gate's own console meanwhile`);
          this.hooks.onChange?.();
        }
        if (this.closed) return;
        await new Promise((resolveLater) => setTimeout(resolveLater, 1_000).unref());
        if (this.closed) return;
      }
    }
    if (this.closed) {
      await connection.close();
      return;
    }
    this.connection = connection;
    this.js = jetstream(connection, { timeout: 3_000 });
    void this.watchStatus(connection);
    await this.becomeOnline();
  }

  private async watchStatus(connection: NatsConnection): Promise<void> {
    for await (const status of connection.status()) {
      if (this.closed) return;
      if (status.type === 'disconnect') {
        this.online = false;
        this.offlineReason = `lost the team server ${this.endpoint.url}; reconnecting`;
        this.hooks.log(`${this.offlineReason}: prompts are answered at this gate's own console meanwhile`);
        this.hooks.onChange?.();
      } else if (status.type === 'reconnect') {
        this.hooks.log(`reached the team server ${this.endpoint.url} again: sending what waited`);
        await this.becomeOnline();
      }
    }
  }

  private async becomeOnline(): Promise<void> {
    // Buckets are opened again: a server that restarted knows none of the old consumers.
    this.kvs.clear();
    try {
      await this.hooks.onOnline?.(this);
    } catch (error) {
      this.hooks.log(`team setup after connecting failed: ${(error as Error).message}`);
    }
    if (this.closed) return;
    this.online = true;
    for (const wake of [...this.onlineWaiters]) wake();
    this.onlineWaiters.clear();
    this.hooks.onChange?.();
    await this.pump();
  }

  /**
   * Sends the queue in order, decisions first, up to IN_FLIGHT at once (one connection keeps their
   * order; waiting for each acknowledgement in turn would make a burst of prompts wait in line). On a
   * passing failure the rest stays queued and is tried again shortly; ids make a resend harmless.
   */
  private async pump(): Promise<void> {
    if (this.pumping) return;
    this.pumping = true;
    try {
      while (this.online && !this.closed) {
        const queue = this.decisions.length > 0 ? this.decisions : this.messages;
        const batch = queue.slice(0, queue === this.decisions ? 1 : IN_FLIGHT);
        if (batch.length === 0) break;
        const results = await Promise.allSettled(batch.map((item) => this.send(item)));
        let sent = 0;
        let retry = false;
        for (const [index, result] of results.entries()) {
          if (result.status === 'fulfilled') {
            sent = index + 1;
            continue;
          }
          if (!this.online || this.closed || isTransient(result.reason)) {
            retry = true;
            break;
          }
          // Refused for good (a permission, a size): retrying cannot help, and must not hold up the rest.
          const item = batch[index]!;
          this.hooks.log(`the team server refused a message on ${item.kind === 'message' ? item.subject : item.key}: ${(result.reason as Error).message}; it was dropped`);
          sent = index + 1;
        }
        queue.splice(0, sent);
        this.hooks.onChange?.();
        if (retry) {
          // The server is slow or going away: try again shortly, in the same order.
          if (this.online && !this.closed) setTimeout(() => void this.pump(), 1_000).unref();
          break;
        }
      }
    } finally {
      this.pumping = false;
    }
  }

  private async send(item: Outgoing): Promise<void> {
    if (item.kind === 'message') {
      item.sending?.();
      await this.jetstream().publish(item.subject, item.data, { msgID: item.msgId });
      return;
    }
    const kv = await this.bucket(this.names.decisionsBucket);
    try {
      await kv.create(item.key, item.data);
    } catch (error) {
      const existing = await kv.get(item.key).catch(() => null);
      if (!existing || existing.operation !== 'PUT') throw error;
      // Sent before the connection dropped, or taken meanwhile: either way this key is decided.
      if (existing.string() !== item.data) this.hooks.onDecisionConflict?.(item.key);
    }
  }
}

/** A failure that may pass: a timeout or a connection going away, as opposed to a refusal. */
function isTransient(error: unknown): boolean {
  const text = `${(error as Error)?.name ?? ''} ${(error as Error)?.message ?? ''}`.toLowerCase();
  return /timeout|disconnect|closed|no responders|connection/.test(text);
}
