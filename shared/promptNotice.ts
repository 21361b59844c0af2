import { AGENT_NAME_MAX_CHARS, AGENT_VERSION_MAX_CHARS, agentLabel, cleanAgentText } from './agentName';
import type { ApprovalRequest } from './approval';

/**
 * The title and body of a prompt's notification, in the browser and on the desktop alike: a fixed
 * template naming the tool and the agent that asks, never the arguments (a notification shows on a
 * locked screen and in the system's history, where a path or a command does not belong). The agent's
 * names are cleaned again here, whoever built the request, so a notification is never a channel for
 * an agent's own lines of text.
 */
export function promptNotice(request: Pick<ApprovalRequest, 'tool' | 'agent' | 'agentSession'>): { title: string; body: string } {
  const agent = request.agent
    ? agentLabel({
        client: cleanAgentText(request.agent.client, AGENT_NAME_MAX_CHARS),
        version: cleanAgentText(request.agent.version, AGENT_VERSION_MAX_CHARS),
        ...(request.agent.via
          ? { via: { client: cleanAgentText(request.agent.via.client, AGENT_NAME_MAX_CHARS), version: cleanAgentText(request.agent.via.version, AGENT_VERSION_MAX_CHARS) } }
          : {}),
      })
    : request.agentSession
      ? `agent session ${request.agentSession.slice(0, 8)}`
      : 'a local caller';
  return { title: `${request.tool} is waiting for your approval`, body: `Asked by ${agent}. Click to open the prompt.` };
}

/**
 * How many prompts are notified one by one at a time. Past them, the prompts that come share one
 * notification until the person looks: a flood of prompts is one alert, not fifty.
 */
export const PROMPTS_NOTIFIED_APART = 3;

/** The notification that stands for the prompts past the first few: fixed text, never updated (each update would alert again). */
export const FOLDED_NOTICE = { title: 'More prompts are waiting for your approval', body: 'Click to open the console and see them all.' } as const;

/** Something shown that can be closed: a browser's or the desktop's notification. */
interface Closable {
  close(): void;
}

/** Closes a notification that may be gone already. */
export function closeQuietly(notification: Closable | undefined): void {
  try {
    notification?.close();
  } catch {
    // already gone
  }
}

/**
 * The one notification the prompts past the first few share, and which prompts it stands for. It
 * goes when the last of them ends, or when clicked.
 */
export class FoldedPrompts<N extends Closable> {
  private readonly held: string[] = [];
  private notification: N | undefined;

  /** Whether a prompt arriving while `apart` prompts have notifications of their own shares this one instead. */
  static folds(apart: number): boolean {
    return apart >= PROMPTS_NOTIFIED_APART;
  }

  /** Takes a prompt in; `show` makes the shared notification when there is none yet (undefined: the platform refused). */
  take(approvalId: string, show: () => N | undefined): void {
    this.held.push(approvalId);
    this.notification ??= show();
  }

  /** A prompt ended: once none it stands for waits, the notification goes. */
  release(approvalId: string): void {
    const at = this.held.indexOf(approvalId);
    if (at < 0) return;
    this.held.splice(at, 1);
    if (this.held.length === 0) this.close();
  }

  /** The notification was clicked: returns the oldest prompt it stood for (the one to open), and lets all go. */
  clicked(): string | undefined {
    const oldest = this.held[0];
    this.close();
    return oldest;
  }

  /** Closes the notification and forgets the prompts. */
  close(): void {
    this.held.length = 0;
    const notification = this.notification;
    this.notification = undefined;
    closeQuietly(notification);
  }
}
