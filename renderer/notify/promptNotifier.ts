import type { ApprovalRequest } from '../../shared/approval';
import { FOLDED_NOTICE, PromptAlerts, promptNotice, type Closable } from '../../shared/promptNotice';
import { readItem, writeItem, type KeyValueStore } from '../store/sessionStore';

/** A chime, as an alert: nothing to close once played. */
const SOUNDED: Closable = { close: () => undefined };

/** Where the choices are kept (localStorage: per browser, kept across visits). */
export const NOTIFY_KEY = 'toolgate.notify';
export const SOUND_KEY = 'toolgate.sound';

/** The parts of a shown notification the notifier uses. */
export interface ShownNotification {
  onclick: ((event: Event) => unknown) | null;
  close(): void;
}

/** What the page offers: whether it is out of sight, notifications, a sound, and focus. */
export interface NotifierEnvironment {
  /** Whether the console is out of sight (its tab hidden, its window minimised or behind others). */
  hidden(): boolean;
  /**
   * Whether this console shows notifications itself: in a browser, with permission; in the desktop
   * app the main process shows them instead, so never.
   */
  canNotify(): boolean;
  /** Shows one; undefined when the platform refused. */
  notify(title: string, options: { body: string; tag: string }): ShownNotification | undefined;
  /** Plays the prompt sound. */
  playSound(): void;
  /** Brings the console to the front. */
  focus(): void;
}

/**
 * Tells the person of a prompt that arrives while the console is out of sight: a notification
 * naming the tool and the agent (once they turned notifications on), a sound (once they turned it
 * on). Clicking the notification brings the console forward on that prompt; it goes away when the
 * prompt is answered. Past the first few notified at a time, the prompts that come share one
 * notification (FOLDED_NOTICE), which opens the oldest of them.
 */
export class PromptNotifier {
  /** The prompts' notifications: the first few each their own, the ones after one they share. */
  private readonly notifications = new PromptAlerts<ShownNotification>();
  /** The prompts' chimes, shared past the first few as the notifications are. */
  private readonly chimes = new PromptAlerts<Closable>();
  private readonly listeners = new Set<() => void>();
  /**
   * Prompts already told of (or seen while the console was in sight): each is notified once at
   * most. An id is forgotten when its prompt leaves the list, or resolves without having been in it.
   */
  private readonly known = new Set<string>();
  /** The prompts the console's list held when follow() last saw it. */
  private listed = new Set<string>();

  constructor(
    private readonly environment: NotifierEnvironment,
    private readonly store: KeyValueStore | undefined,
    private readonly openPrompt: (approvalId: string) => void,
  ) {}

  /** Whether the person turned notifications on (off until they do). */
  get notifyOn(): boolean {
    return readItem(this.store, NOTIFY_KEY) === 'on';
  }

  /** Whether the person turned the sound on (off until they do). */
  get soundOn(): boolean {
    return readItem(this.store, SOUND_KEY) === 'on';
  }

  /** Turns notifications on or off (asking the browser's permission is the caller's, on a person's click). */
  setNotify(on: boolean): void {
    writeItem(this.store, NOTIFY_KEY, on ? 'on' : 'off');
    this.changed();
  }

  /** Turns the sound on or off. */
  setSound(on: boolean): void {
    writeItem(this.store, SOUND_KEY, on ? 'on' : 'off');
    this.changed();
  }

  /** Listens for a change of the choices; returns the unsubscribe function. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A prompt arrived (its event; or follow() found it in the list). Told of once, however it came. */
  promptArrived(request: ApprovalRequest): void {
    if (this.known.has(request.approvalId)) return;
    this.known.add(request.approvalId);
    if (!this.environment.hidden()) return;
    if (this.soundOn) this.chimes.add(request.approvalId, () => this.chime(), () => this.chime());
    if (!this.notifyOn || !this.environment.canNotify()) return;
    this.notifications.add(request.approvalId, () => this.showOwn(request), () => this.showShared());
  }

  /**
   * The prompts waiting now, as the console lists them. A prompt can reach the list without its
   * event: loaded with the pending prompts when the console opens, or after its link to the gate
   * was lost and came back. One not told of before is notified like an arrival; one gone from the
   * list is resolved. A prompt whose event came before the list caught up is left as it is.
   */
  follow(waiting: readonly ApprovalRequest[]): void {
    const before = this.listed;
    this.listed = new Set(waiting.map((request) => request.approvalId));
    for (const request of waiting) this.promptArrived(request);
    for (const approvalId of before) if (!this.listed.has(approvalId)) this.promptResolved(approvalId);
  }

  /** A prompt was answered, expired or withdrawn: its notification goes. */
  promptResolved(approvalId: string): void {
    // One still listed is forgotten when it leaves the list: a list not yet caught up tells of it no second time.
    if (!this.listed.has(approvalId)) this.known.delete(approvalId);
    this.notifications.end(approvalId);
    this.chimes.end(approvalId);
  }

  /** Plays the prompt sound. */
  private chime(): Closable {
    this.environment.playSound();
    return SOUNDED;
  }

  /** A prompt's own notification; a click focuses the console on it. */
  private showOwn(request: ApprovalRequest): ShownNotification | undefined {
    const { title, body } = promptNotice(request);
    const notification = this.environment.notify(title, { body, tag: request.approvalId });
    if (!notification) return undefined;
    notification.onclick = () => {
      this.environment.focus();
      this.openPrompt(request.approvalId);
      this.promptResolved(request.approvalId);
    };
    return notification;
  }

  /** The notification the prompts past the first few share; a click opens the oldest of them. */
  private showShared(): ShownNotification | undefined {
    const notification = this.environment.notify(FOLDED_NOTICE.title, { body: FOLDED_NOTICE.body, tag: 'toolgate-more-prompts' });
    if (!notification) return undefined;
    notification.onclick = () => {
      this.environment.focus();
      const oldest = this.notifications.sharedClicked();
      if (oldest !== undefined) this.openPrompt(oldest);
    };
    return notification;
  }

  private changed(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
