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
export interface Closable {
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
 * The alerts of waiting prompts (notifications, or chimes): the first few prompts waiting at a time
 * get one each; the ones that come after share one, made once, which stands for them until the last
 * of them ends or it is clicked.
 */
export class PromptAlerts<N extends Closable> {
  private readonly own = new Map<string, N>();
  private readonly sharing: string[] = [];
  private shared: N | undefined;

  /** Alerts of a prompt: `ownAlert` makes one of its own, `sharedAlert` the shared one when there is none yet (undefined: the platform refused). */
  add(approvalId: string, ownAlert: () => N | undefined, sharedAlert: () => N | undefined): void {
    if (this.own.size < PROMPTS_NOTIFIED_APART) {
      const alert = ownAlert();
      if (alert) this.own.set(approvalId, alert);
      return;
    }
    this.sharing.push(approvalId);
    this.shared ??= sharedAlert();
  }

  /** A prompt ended, or its own alert was clicked: its alert goes, and the shared one once none it stands for waits. */
  end(approvalId: string): void {
    const alert = this.own.get(approvalId);
    if (alert) {
      this.own.delete(approvalId);
      closeQuietly(alert);
      return;
    }
    const at = this.sharing.indexOf(approvalId);
    if (at < 0) return;
    this.sharing.splice(at, 1);
    if (this.sharing.length === 0) this.closeShared();
  }

  /** The shared alert was clicked: returns the oldest prompt it stood for (the one to open), and lets them all go. */
  sharedClicked(): string | undefined {
    const oldest = this.sharing[0];
    this.closeShared();
    return oldest;
  }

  /** Closes every alert. */
  close(): void {
    for (const alert of this.own.values()) closeQuietly(alert);
    this.own.clear();
    this.closeShared();
  }

  private closeShared(): void {
    this.sharing.length = 0;
    const shared = this.shared;
    this.shared = undefined;
    closeQuietly(shared);
  }
}
