/**
 * The prompt notifier: nothing until the person turns it on; then a prompt arriving while the
 * console is out of sight is notified by tool and agent only (never its arguments) and, if chosen,
 * with a sound; clicking the notification focuses the console on that prompt; answering the prompt
 * takes the notification away. A console in sight is never notified.
 */
import { describe, expect, it } from 'vitest';
import { FOLDED_NOTICE, promptNotice } from '../../shared/promptNotice';
import { PromptNotifier, type NotifierEnvironment, type ShownNotification } from '../../renderer/notify/promptNotifier';
import { approval, memoryStore } from './fixtures';

function environment(hidden: boolean, canNotify = true) {
  const shown: Array<ShownNotification & { title: string; body: string; tag: string; closed: boolean }> = [];
  const events: string[] = [];
  const env: NotifierEnvironment = {
    hidden: () => hidden,
    canNotify: () => canNotify,
    notify: (title, { body, tag }) => {
      const notification = { title, body, tag, closed: false, onclick: null as ShownNotification['onclick'], close: () => void (notification.closed = true) };
      shown.push(notification);
      return notification;
    },
    playSound: () => events.push('sound'),
    focus: () => events.push('focus'),
  };
  return { env, shown, events };
}

const PROMPT = approval('a1', {
  tool: 'write_file',
  arguments: { path: 'private/plan.md', content: 'launch codes' },
  agentSession: 'f00dfeed-1234',
  agent: { client: 'claude-code', version: '2.1.0', sessionStartedAt: '2026-01-01T10:00:00.000Z' },
});

describe('the prompt notifier', () => {
  it('is off, sound and all, until the person turns it on', () => {
    const { env, shown, events } = environment(true);
    const notifier = new PromptNotifier(env, memoryStore(), () => {});
    notifier.promptArrived(PROMPT);
    expect(shown).toEqual([]);
    expect(events).toEqual([]);
  });

  it('names the tool and the agent, never the arguments; a click focuses the console on that prompt and closes it', () => {
    const { env, shown, events } = environment(true);
    const opened: string[] = [];
    const notifier = new PromptNotifier(env, memoryStore(), (approvalId) => opened.push(approvalId));
    notifier.setNotify(true);
    notifier.promptArrived(PROMPT);
    expect(shown).toHaveLength(1);
    const [notification] = shown;
    expect(notification).toMatchObject({ title: 'write_file is waiting for your approval', body: 'Asked by claude-code 2.1.0. Click to open the prompt.', tag: 'a1' });
    expect(JSON.stringify(notification)).not.toMatch(/private|plan\.md|launch codes/);
    notification!.onclick!(new Event('click'));
    expect(events).toEqual(['focus']);
    expect(opened).toEqual(['a1']);
    expect(notification!.closed).toBe(true);
  });

  it('plays the sound only when chosen, and notifies nothing while the console is in sight', () => {
    const hidden = environment(true);
    const store = memoryStore();
    const notifier = new PromptNotifier(hidden.env, store, () => {});
    notifier.setSound(true);
    notifier.promptArrived(PROMPT);
    expect(hidden.events).toEqual(['sound']);
    expect(hidden.shown).toEqual([]);
    // The choices are kept for the next visit.
    expect(new PromptNotifier(hidden.env, store, () => {}).soundOn).toBe(true);

    const inSight = environment(false);
    const seen = new PromptNotifier(inSight.env, store, () => {});
    seen.setNotify(true);
    seen.promptArrived(PROMPT);
    expect(inSight.shown).toEqual([]);
    expect(inSight.events).toEqual([]);
  });

  it('closes the notification of a prompt answered elsewhere, and shows none where the page may not', () => {
    const { env, shown } = environment(true);
    const notifier = new PromptNotifier(env, memoryStore(), () => {});
    notifier.setNotify(true);
    notifier.promptArrived(PROMPT);
    notifier.promptResolved('a1');
    expect(shown[0]!.closed).toBe(true);

    const desktop = environment(true, false);
    const inDesktop = new PromptNotifier(desktop.env, memoryStore(), () => {});
    inDesktop.setNotify(true);
    inDesktop.promptArrived(PROMPT);
    expect(desktop.shown).toEqual([]);
  });

  it('notifies a prompt that reached the list without its event (on opening, or after a lost link) once, and closes it when it leaves the list', () => {
    const { env, shown, events } = environment(true);
    const notifier = new PromptNotifier(env, memoryStore(), () => {});
    notifier.setNotify(true);
    notifier.setSound(true);
    const second = approval('a2', { tool: 'delete_path' });
    notifier.follow([PROMPT]);
    expect(shown.map((notification) => notification.tag)).toEqual(['a1']);
    // The same prompt listed again, or its event coming late, tells of it no second time.
    notifier.follow([PROMPT, second]);
    notifier.promptArrived(PROMPT);
    expect(shown.map((notification) => notification.tag)).toEqual(['a1', 'a2']);
    expect(events).toEqual(['sound', 'sound']);
    // Answered while the link was down: gone from the next list, its notification goes.
    notifier.follow([second]);
    expect(shown.map((notification) => notification.closed)).toEqual([true, false]);
  });

  it('keeps the notification of a prompt whose event came before the list caught up', () => {
    const { env, shown } = environment(true);
    const notifier = new PromptNotifier(env, memoryStore(), () => {});
    notifier.setNotify(true);
    notifier.follow([]);
    notifier.promptArrived(PROMPT);
    notifier.follow([]);
    expect(shown).toHaveLength(1);
    expect(shown[0]!.closed).toBe(false);
    notifier.follow([PROMPT]);
    expect(shown).toHaveLength(1);
  });

  it('tells no second time of a prompt answered while a list that still holds it is shown', () => {
    const { env, shown } = environment(true);
    const notifier = new PromptNotifier(env, memoryStore(), () => {});
    notifier.setNotify(true);
    notifier.follow([PROMPT]);
    notifier.promptResolved('a1');
    expect(shown.map((notification) => notification.closed)).toEqual([true]);
    // The list has not caught up with the answer yet: it still holds the prompt.
    notifier.follow([PROMPT]);
    notifier.follow([]);
    expect(shown).toHaveLength(1);
  });

  it('does not tell later of a prompt that arrived while the console was in sight', () => {
    let hidden = false;
    const { env, shown } = environment(true);
    const notifier = new PromptNotifier({ ...env, hidden: () => hidden }, memoryStore(), () => {});
    notifier.setNotify(true);
    notifier.promptArrived(PROMPT);
    hidden = true;
    notifier.follow([PROMPT]);
    expect(shown).toEqual([]);
  });

  it('notifies the first three prompts apart; the ones after share one notification, which opens the oldest of them and goes when they are answered', () => {
    const { env, shown, events } = environment(true);
    const opened: string[] = [];
    const notifier = new PromptNotifier(env, memoryStore(), (approvalId) => opened.push(approvalId));
    notifier.setNotify(true);
    for (const id of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']) notifier.promptArrived(approval(id));
    expect(shown.map((notification) => notification.tag)).toEqual(['p1', 'p2', 'p3', 'toolgate-more-prompts']);
    const more = shown[3]!;
    expect(more).toMatchObject(FOLDED_NOTICE);
    // Answering some of the prompts it stands for leaves it; answering the last takes it away.
    notifier.promptResolved('p4');
    notifier.promptResolved('p5');
    expect(more.closed).toBe(false);
    notifier.promptResolved('p6');
    expect(more.closed).toBe(true);

    // Once a prompt notified apart is answered, the next is notified apart again; a click on the shared one opens the oldest it stands for.
    notifier.promptResolved('p1');
    for (const id of ['p7', 'p8', 'p9']) notifier.promptArrived(approval(id));
    expect(shown.slice(4).map((notification) => notification.tag)).toEqual(['p7', 'toolgate-more-prompts']);
    shown[5]!.onclick!(new Event('click'));
    expect(events).toEqual(['focus']);
    expect(opened).toEqual(['p8']);
    expect(shown[5]!.closed).toBe(true);
    // What it stood for is not told of again.
    notifier.follow([approval('p2'), approval('p3'), approval('p7'), approval('p8'), approval('p9')]);
    expect(shown).toHaveLength(6);
  });

  it('chimes for the first three prompts apart and once for the ones after, again once those are answered', () => {
    const { env, events } = environment(true);
    const notifier = new PromptNotifier(env, memoryStore(), () => {});
    notifier.setSound(true);
    for (const id of ['p1', 'p2', 'p3', 'p4', 'p5', 'p6']) notifier.promptArrived(approval(id));
    expect(events).toEqual(['sound', 'sound', 'sound', 'sound']);
    for (const id of ['p4', 'p5', 'p6']) notifier.promptResolved(id);
    notifier.promptArrived(approval('p7'));
    notifier.promptArrived(approval('p8'));
    expect(events).toHaveLength(5);
    notifier.promptResolved('p1');
    notifier.promptArrived(approval('p9'));
    expect(events).toHaveLength(6);
  });

  it('names an agent without a declared client by its session, and a call from no agent as local', () => {
    expect(promptNotice({ tool: 'shell_exec', agentSession: 'abcdef0123456789' }).body).toBe('Asked by agent session abcdef01. Click to open the prompt.');
    expect(promptNotice({ tool: 'shell_exec' }).body).toBe('Asked by a local caller. Click to open the prompt.');
  });
});
