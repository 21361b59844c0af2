import { DeliverPolicy } from '@nats-io/jetstream';
import { GateError } from '../../shared/errors';
import type { TeamDecideRequest, TeamDecideResult, TeamPrompt, TeamPromptFilter } from '../../shared/team';
import type { TeamDecision } from '../../shared/teamDecision';
import type { TeamCredentials } from './teamCredentials';
import type { TeamLink } from './teamLink';
import { readDecision, readEndedMessage, readPromptMessage, signDecision } from './teamMessages';

/** Team prompts a console keeps; past it the oldest go (a day's worth for a busy team fits). */
const MAX_PROMPTS = 5_000;

/** Something stoppable: a consumer's messages or a bucket watch. */
interface Stoppable {
  stop(): unknown;
}

/**
 * The team's prompts as a console sees them: read from the prompts stream (each gate's cards and how
 * they ended) and the decisions bucket, merged by prompt. Anything malformed is dropped and logged;
 * nothing a message holds can throw out of here.
 */
export class TeamBoard {
  private readonly prompts = new Map<string, TeamPrompt>();
  private readonly decisions = new Map<string, TeamDecision>();
  private readonly ends = new Map<string, NonNullable<TeamPrompt['ended']>>();
  private readonly listeners = new Set<() => void>();
  private running: Stoppable[] = [];
  private lastSeq = 0;

  constructor(
    private readonly credentials: TeamCredentials,
    private readonly link: TeamLink,
    private readonly log: (message: string) => void,
  ) {}

  /** Starts (again, after a reconnection) reading the stream from where it left off, and watching every decision. */
  async follow(): Promise<void> {
    this.stopReading();
    const js = this.link.jetstream();
    const consumer = await js.consumers.get(
      this.link.names.promptsStream,
      this.lastSeq > 0 ? { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: this.lastSeq + 1 } : { deliver_policy: DeliverPolicy.All },
    );
    const messages = await consumer.consume();
    this.running.push(messages);
    void (async () => {
      for await (const message of messages) {
        this.lastSeq = Math.max(this.lastSeq, message.seq);
        this.take(message.subject, message.data);
      }
    })().catch((error: unknown) => this.log(`team prompts stopped: ${(error as Error).message}`));
    const kv = await this.link.bucket(this.link.names.decisionsBucket);
    const watch = await kv.watch({ key: '>' });
    this.running.push(watch);
    void (async () => {
      for await (const entry of watch) {
        if (entry.operation === 'PUT') this.takeDecision(entry.key, entry.value);
        else if (this.decisions.delete(entry.key)) this.changed();
      }
    })().catch((error: unknown) => this.log(`team decisions stopped: ${(error as Error).message}`));
  }

  /** Tells the listener of every change; returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The team's prompts, newest first, as the filter asks. */
  list(filter: TeamPromptFilter = {}): TeamPrompt[] {
    const shown: TeamPrompt[] = [];
    for (const [key, prompt] of this.prompts) {
      const decision = this.decisions.get(key);
      const ended = this.ends.get(key);
      const state = ended ? 'ended' : decision ? 'decided' : 'waiting';
      if (filter.waitingOnly && state !== 'waiting') continue;
      if (filter.gate !== undefined && prompt.gate !== filter.gate) continue;
      if (filter.machine !== undefined && prompt.machine !== filter.machine) continue;
      if (filter.workspace !== undefined && prompt.workspace !== filter.workspace) continue;
      if (filter.agent !== undefined && prompt.request.agent?.client !== filter.agent) continue;
      shown.push({ ...prompt, state, ...(decision ? { decision } : {}), ...(ended ? { ended } : {}) });
    }
    return shown.reverse();
  }

  /** A decision already at a prompt's key, if the board has seen one. */
  decisionAt(key: string): TeamDecision | undefined {
    return this.decisions.get(key);
  }

  /**
   * Answers another gate's prompt as this member: signed with its key, written compare-and-set at
   * the prompt's key. The first answer wins; a later one gets the winner back. Only an approver may.
   */
  async decide(request: TeamDecideRequest): Promise<TeamDecideResult> {
    const { approver, member, key, publicKey } = this.credentials;
    if (!approver) throw new GateError('EPERMISSION', `this member (${member}) is not one of the team's approvers: its answers would not count; ask the team's admin to add its key`);
    if (!this.link.isOnline) throw new GateError('EUNAVAILABLE', 'the team server cannot be reached now: answer when it is back');
    const promptKey = this.link.names.decisionKey(request.gate, request.approvalId);
    const shown = this.prompts.get(promptKey);
    if (shown && shown.request.bindingHash !== request.bindingHash) throw new GateError('EVALIDATION', 'this prompt no longer binds the call you were shown: look at it again before answering');
    const decision = signDecision(
      {
        gate: request.gate,
        approvalId: request.approvalId,
        bindingHash: request.bindingHash,
        decision: request.decision,
        ...(request.reason ? { reason: request.reason } : {}),
        ...(request.tellAgent ? { tellAgent: request.tellAgent } : {}),
        by: member,
        approver: approver.name,
        decidedAt: new Date().toISOString(),
      },
      key,
      publicKey,
    );
    return claimDecision(this.link, promptKey, decision);
  }

  /** Stops reading. Idempotent. */
  close(): void {
    this.stopReading();
    this.listeners.clear();
  }

  private stopReading(): void {
    for (const running of this.running) {
      try {
        running.stop();
      } catch {
        // already stopped with its connection
      }
    }
    this.running = [];
  }

  private take(subject: string, data: Uint8Array): void {
    const kind = subject.split('.')[2];
    const sender = subject.split('.')[3];
    if (kind === 'prompts') {
      const read = readPromptMessage(data);
      // A gate can publish only under its own name, so the subject says who sent it; a card claiming another gate is dropped.
      if (!read.ok || read.value.gate !== sender) return this.log(`dropped ${read.ok ? `a prompt from ${sender} claiming to be from ${read.value.gate}` : read.problem} on ${subject}`);
      const { request, gate, machine, workspace } = read.value;
      this.prompts.set(this.link.names.decisionKey(gate, request.approvalId), { gate, machine, workspace, request, state: 'waiting' });
      if (this.prompts.size > MAX_PROMPTS) this.forget(this.prompts.keys().next().value!);
    } else if (kind === 'ended') {
      const read = readEndedMessage(data);
      if (!read.ok || read.value.gate !== sender) return this.log(`dropped ${read.ok ? `an end from ${sender} claiming to be from ${read.value.gate}` : read.problem} on ${subject}`);
      const { gate, approvalId, outcome, reason, endedAt } = read.value;
      this.ends.set(this.link.names.decisionKey(gate, approvalId), { outcome, endedAt, ...(reason ? { reason } : {}) });
    } else return;
    this.changed();
  }

  private takeDecision(key: string, data: Uint8Array): void {
    const read = readDecision(data);
    if (!read.ok) return this.log(`dropped ${read.problem} at ${key}`);
    this.decisions.set(key, read.value);
    this.changed();
  }

  private forget(key: string): void {
    this.prompts.delete(key);
    this.decisions.delete(key);
    this.ends.delete(key);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
  }
}

/** Writes a signed decision at a prompt's key unless one is there: won, or the decision that was first. */
export async function claimDecision(link: TeamLink, promptKey: string, decision: TeamDecision): Promise<TeamDecideResult> {
  const kv = await link.bucket(link.names.decisionsBucket);
  // Twice at most: a key that held something when the write was tried may be free when it is read
  // (a gate removed a malformed decision in between), and is then tried once more.
  for (let attempt = 1; ; attempt++) {
    try {
      await kv.create(promptKey, JSON.stringify(decision));
      return { won: true, decision };
    } catch (error) {
      const existing = await kv.get(promptKey).catch(() => null);
      if (!existing || existing.operation !== 'PUT') {
        if (attempt < 2) continue;
        throw new GateError('EUNAVAILABLE', `the team did not take the answer: ${(error as Error).message}`);
      }
      const read = readDecision(existing.value);
      if (!read.ok) throw new GateError('EUNAVAILABLE', `the prompt's key holds ${read.problem}; its gate removes it, answer again shortly`);
      return { won: false, decision: read.value };
    }
  }
}
