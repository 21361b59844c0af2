/**
 * The desktop's prompt notifications, with stand-ins for Electron's Notification and window: none
 * while the window is focused or where the system has none; one per prompt otherwise, silent,
 * naming the tool and the agent; a click restores and focuses the window and opens that prompt;
 * an answered prompt's notification is closed, and stopping closes the rest.
 */
import { describe, expect, it } from 'vitest';
import { notifyPromptsOnDesktop, type DesktopNotification, type NotifiedPrompt } from '../../main/desktop/promptNotifications';
import { FOLDED_NOTICE } from '../../shared/promptNotice';

/** A prompt as the notifications see it: its id, tool and agent. */
function approval(approvalId: string, overrides: Partial<NotifiedPrompt> = {}): NotifiedPrompt {
  return { approvalId, tool: 'write_file', ...overrides };
}

function setUp(state: { focused: boolean; minimized?: boolean; supported?: boolean }) {
  const prompts = new Set<(request: NotifiedPrompt) => void>();
  const ends = new Set<(approvalId: string) => void>();
  const log: string[] = [];
  const made: Array<DesktopNotification & { options: { title: string; body: string; silent: boolean }; click(): void }> = [];
  const stop = notifyPromptsOnDesktop({
    onPrompt: (listener) => (prompts.add(listener), () => prompts.delete(listener)),
    onResolved: (listener) => (ends.add(listener), () => ends.delete(listener)),
    window: {
      isDestroyed: () => false,
      isFocused: () => state.focused,
      isMinimized: () => state.minimized ?? false,
      restore: () => log.push('restore'),
      show: () => log.push('show'),
      focus: () => log.push('focus'),
    },
    supported: state.supported ?? true,
    create: (options) => {
      let onClick = () => {};
      const notification = {
        options,
        on: (_event: 'click', listener: () => void) => (onClick = listener),
        show: () => log.push(`shown ${options.title}`),
        close: () => log.push(`closed ${options.title}`),
        click: () => onClick(),
      };
      made.push(notification);
      return notification;
    },
    openPrompt: (approvalId) => log.push(`open ${approvalId}`),
  });
  return {
    log,
    made,
    stop,
    ask: (request: NotifiedPrompt) => prompts.forEach((listener) => listener(request)),
    resolve: (approvalId: string) => ends.forEach((listener) => listener(approvalId)),
  };
}

const PROMPT = approval('a1', { tool: 'shell_exec', agent: { client: 'cursor', version: '0.9', sessionStartedAt: '2026-01-01T00:00:00Z' } });

describe('desktop prompt notifications', () => {
  it('shows none while the window is focused, or where the system has no notifications', () => {
    const focused = setUp({ focused: true });
    focused.ask(PROMPT);
    expect(focused.made).toEqual([]);
    const unsupported = setUp({ focused: false, supported: false });
    unsupported.ask(PROMPT);
    expect(unsupported.made).toEqual([]);
  });

  it('names the tool and the agent, silently; a click restores and focuses the window on that prompt', () => {
    const desktop = setUp({ focused: false, minimized: true });
    desktop.ask(PROMPT);
    expect(desktop.made[0]!.options).toEqual({ title: 'shell_exec is waiting for your approval', body: 'Asked by cursor 0.9. Click to open the prompt.', silent: true });
    desktop.made[0]!.click();
    expect(desktop.log).toEqual([
      'shown shell_exec is waiting for your approval',
      'restore',
      'show',
      'focus',
      'open a1',
      'closed shell_exec is waiting for your approval',
    ]);
  });

  it('closes an answered prompt’s notification, and every one left when stopped (twice is fine)', () => {
    const desktop = setUp({ focused: false });
    desktop.ask(PROMPT);
    desktop.ask(approval('a2', { tool: 'write_file' }));
    desktop.resolve('a1');
    expect(desktop.log.at(-1)).toBe('closed shell_exec is waiting for your approval');
    desktop.stop();
    desktop.stop();
    expect(desktop.log.filter((line) => line.startsWith('closed'))).toEqual(['closed shell_exec is waiting for your approval', 'closed write_file is waiting for your approval']);
    desktop.ask(approval('a3'));
    expect(desktop.made).toHaveLength(2);
  });

  it('notifies the first three prompts apart; the ones after share one notification, which opens the oldest of them and goes when they are answered', () => {
    const desktop = setUp({ focused: false, minimized: true });
    for (const id of ['p1', 'p2', 'p3', 'p4', 'p5']) desktop.ask(approval(id));
    expect(desktop.made.map((notification) => notification.options.title)).toEqual([...Array(3).fill('write_file is waiting for your approval'), FOLDED_NOTICE.title]);
    expect(desktop.made[3]!.options).toEqual({ ...FOLDED_NOTICE, silent: true });
    // Answering some of the prompts it stands for leaves it; answering the last takes it away.
    desktop.resolve('p4');
    expect(desktop.log).not.toContain(`closed ${FOLDED_NOTICE.title}`);
    desktop.resolve('p5');
    expect(desktop.log.at(-1)).toBe(`closed ${FOLDED_NOTICE.title}`);

    // The next prompts share a new one; its click brings the window forward on the oldest.
    desktop.ask(approval('p6'));
    desktop.ask(approval('p7'));
    expect(desktop.made).toHaveLength(5);
    desktop.made[4]!.click();
    expect(desktop.log.slice(-5)).toEqual([`closed ${FOLDED_NOTICE.title}`, 'restore', 'show', 'focus', 'open p6']);
  });
});
