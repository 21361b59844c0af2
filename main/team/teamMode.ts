import type { ApprovalOutcome, ApprovalRequest } from '../../shared/approval';
import type { BridgeParsedRequest } from '../../shared/contract';
import type { TeamDecideRequest, TeamDecideResult, TeamPrompt, TeamPromptFilter, TeamStatus } from '../../shared/team';
import type { TeamDecision } from '../../shared/teamDecision';
import type { ApprovalQueue } from '../approvals/approvalQueue';
import type { AuditStore } from '../audit/auditStore';
import { TeamBoard } from './teamBoard';
import type { TeamCredentials } from './teamCredentials';
import { TeamGate } from './teamGate';
import { TeamLink } from './teamLink';
import { followTeamPolicy, teamPolicyUnread } from './teamPolicy';
import type { PolicyEngine } from '../policy/policyEngine';

/** How a gate or a console joins its team: `--team URL --team-creds FILE`, or `team` in settings.json. */
export interface TeamOptions {
  /** The team's NATS server, e.g. nats://nats.example.com:4222. */
  url: string;
  /** The member's credentials, read from --team-creds. */
  credentials: TeamCredentials;
  /** Where the team's connection problems are told (stderr by default). */
  log?: (message: string) => void;
}

/** The gate this team mode serves (absent for `toolgate console --team`, a console with no gate). */
export interface TeamModeGate {
  approvals: ApprovalQueue;
  audit: Pick<AuditStore, 'append'>;
  workspace: string;
  /** The gate's policy engine, whose team layer follows the team's bucket (absent: a fixed policy). */
  policyEngine?: PolicyEngine;
}

/**
 * A member's whole team mode: its connection, the team's prompts board, and for a gate the
 * publishing of its prompts and the following of their decisions. Starts at once and works offline.
 */
export class TeamMode {
  readonly link: TeamLink;
  readonly board: TeamBoard;
  readonly gate?: TeamGate;
  private readonly listeners = new Set<(status: TeamStatus) => void>();
  private ownWatch?: { stop(): unknown };
  private policyWatch?: { stop(): unknown };

  constructor(
    readonly options: TeamOptions,
    gate?: TeamModeGate,
  ) {
    const log = options.log ?? ((message: string) => process.stderr.write(`toolgate team: ${message}\n`));
    this.link = new TeamLink(
      { url: options.url, credentials: options.credentials },
      {
        log,
        onChange: () => this.changed(),
        onOnline: async () => {
          this.ownWatch?.stop();
          this.policyWatch?.stop();
          if (gate?.policyEngine) this.policyWatch = await followTeamPolicy(gate.policyEngine, this.link, log);
          if (this.gate) this.ownWatch = await this.gate.watchDecisions();
          await this.board.follow();
        },
        onDecisionConflict: (key) => log(`a decision taken here while offline found ${key} already decided by the team`),
      },
    );
    this.board = new TeamBoard(options.credentials, this.link, log);
    this.board.onChange(() => this.changed());
    if (gate) this.gate = new TeamGate({ credentials: options.credentials, link: this.link, ...gate, log });
    // Fail closed until the team's policy is read: its layer asks for whatever it could have allowed.
    if (gate?.policyEngine) void teamPolicyUnread(gate.policyEngine, this.link);
  }

  /** Starts connecting in the background. */
  start(): this {
    this.link.start();
    return this;
  }

  /** Whether the team is reached, as the banner and the console say. */
  status(): TeamStatus {
    return this.link.status(this.options.credentials.approver !== undefined);
  }

  /** Resolves once connected and following the team. */
  whenOnline(): Promise<void> {
    return this.link.whenOnline();
  }

  /** Tells the listener whenever the status or the team's prompts change. */
  onChange(listener: (status: TeamStatus) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The team's prompts, filtered. */
  listPrompts(filter: TeamPromptFilter): TeamPrompt[] {
    return this.board.list(filter);
  }

  /** A team console's answer to any gate's prompt; this gate's own ones go through `ownAnswer` (its queue settles them). */
  decide(request: TeamDecideRequest, ownAnswer: (request: BridgeParsedRequest<'decideApproval'>) => Promise<ApprovalOutcome>): Promise<TeamDecideResult> {
    if (this.gate && request.gate === this.options.credentials.member) return this.answerOwn(request, ownAnswer);
    return this.board.decide(request);
  }

  /** The gate's prompt events, to publish. */
  promptRaised(request: ApprovalRequest): void {
    this.gate?.promptRaised(request);
  }

  /** The gate's prompt ends, to publish. */
  promptEnded(outcome: ApprovalOutcome): void {
    this.gate?.promptEnded(outcome);
  }

  /** The signed decision a prompt was settled by. */
  signedDecision(approvalId: string): TeamDecision | undefined {
    return this.gate?.signedDecision(approvalId);
  }

  /** Closes the connection. Idempotent. */
  async close(): Promise<void> {
    this.ownWatch?.stop();
    this.policyWatch?.stop();
    this.board.close();
    this.listeners.clear();
    await this.link.close();
  }

  private async answerOwn(request: TeamDecideRequest, ownAnswer: (request: BridgeParsedRequest<'decideApproval'>) => Promise<ApprovalOutcome>): Promise<TeamDecideResult> {
    const outcome = await ownAnswer({
      approvalId: request.approvalId,
      decision: request.decision,
      bindingHash: request.bindingHash,
      ...(request.reason ? { reason: request.reason } : {}),
      ...(request.tellAgent ? { tellAgent: request.tellAgent } : {}),
    } as BridgeParsedRequest<'decideApproval'>);
    return { won: true, decision: outcome.teamDecision! };
  }

  private changed(): void {
    const status = this.status();
    for (const listener of [...this.listeners]) {
      try {
        listener(status);
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
