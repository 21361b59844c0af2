import type { ApprovalRequest } from '../../shared/approval';
import { FOLDED_NOTICE, PromptAlerts, promptNotice } from '../../shared/promptNotice';

/** The part of Electron's Notification the desktop uses. */
export interface DesktopNotification {
  on(event: 'click', listener: () => void): unknown;
  show(): void;
  close(): void;
}

/** The part of the console window the notifications look at and bring forward. */
export interface NotifiedWindow {
  isDestroyed(): boolean;
  isFocused(): boolean;
  isMinimized(): boolean;
  restore(): void;
  show(): void;
  focus(): void;
}

/** What a notification is made from: the prompt's id, its tool and its agent (never its arguments). */
export type NotifiedPrompt = Pick<ApprovalRequest, 'approvalId' | 'tool' | 'agent' | 'agentSession'>;

/** What the desktop's prompt notifications need. */
export interface DesktopNotificationOptions {
  /** Listens for the gate's prompts and their ends; returns the unsubscribe function. */
  onPrompt(listener: (request: NotifiedPrompt) => void): () => void;
  onResolved(listener: (approvalId: string) => void): () => void;
  /** The console window. */
  window: NotifiedWindow;
  /** Whether the system shows notifications at all (Electron's Notification.isSupported()). */
  supported: boolean;
  /** Makes a notification (Electron's `new Notification(options)`); silent: the console plays its own sound, if chosen. */
  create(options: { title: string; body: string; silent: boolean }): DesktopNotification;
  /** Tells the console page to show a prompt (the openApproval event). */
  openPrompt(approvalId: string): void;
}

/**
 * The desktop's notifications: a prompt that arrives while the console window is not focused shows
 * a system notification naming the tool and the agent, never the arguments; clicking it brings the
 * window forward on that prompt; answering the prompt takes it away. Past the first few notified
 * at a time, the prompts that come share one notification (FOLDED_NOTICE), which opens the oldest of
 * them. Returns the function that stops them (idempotent).
 */
export function notifyPromptsOnDesktop(options: DesktopNotificationOptions): () => void {
  const alerts = new PromptAlerts<DesktopNotification>();
  /** Brings the window forward on a prompt. */
  const open = (approvalId: string | undefined) => {
    const { window } = options;
    if (window.isDestroyed()) return;
    if (window.isMinimized()) window.restore();
    window.show();
    window.focus();
    if (approvalId !== undefined) options.openPrompt(approvalId);
  };
  /** Makes, shows and returns a silent notification that runs `clicked` when clicked. */
  const notify = (notice: { title: string; body: string }, clicked: () => void) => {
    const notification = options.create({ ...notice, silent: true });
    notification.on('click', clicked);
    notification.show();
    return notification;
  };
  const unsubscribes = [
    options.onPrompt((request) => {
      const { window } = options;
      if (!options.supported || window.isDestroyed() || window.isFocused()) return;
      alerts.add(
        request.approvalId,
        () =>
          notify(promptNotice(request), () => {
            open(request.approvalId);
            alerts.end(request.approvalId);
          }),
        () => notify(FOLDED_NOTICE, () => open(alerts.sharedClicked())),
      );
    }),
    options.onResolved((approvalId) => alerts.end(approvalId)),
  ];
  let stopped = false;
  return () => {
    if (stopped) return;
    stopped = true;
    for (const unsubscribe of unsubscribes) unsubscribe();
    alerts.close();
  };
}
