import { describe, expect, it } from 'vitest';
import { APPROVAL_KEYS, keyMeaning } from '../../renderer/views/approvals/approvalKeys';

const press = (key: string, modifiers: Partial<{ shiftKey: boolean; ctrlKey: boolean; metaKey: boolean; altKey: boolean }> = {}) =>
  keyMeaning({ key, shiftKey: false, ctrlKey: false, metaKey: false, altKey: false, ...modifiers });

describe('the Approvals keys', () => {
  it('approve, deny, open the lasting choices, focus the reason, edit and move between prompts', () => {
    expect(['a', 'd', 's', 't', 'r', 'e', 'j', 'ArrowDown', 'k', 'ArrowUp'].map((key) => press(key))).toEqual([
      'approve',
      'deny',
      'session',
      'timed',
      'reason',
      'edit',
      'next',
      'next',
      'previous',
      'previous',
    ]);
    expect(press('?', { shiftKey: true })).toBe('help');
  });

  it('"always" takes Shift: a lone A (even with Caps Lock on) never opens it', () => {
    expect(press('A', { shiftKey: true })).toBe('always');
    expect(press('a')).toBe('approve');
    expect(press('A')).toBeUndefined();
  });

  it('leave keys with Ctrl, Cmd or Alt, and other Shift combinations, to the browser', () => {
    expect(press('a', { ctrlKey: true })).toBeUndefined();
    expect(press('d', { metaKey: true })).toBeUndefined();
    expect(press('a', { altKey: true })).toBeUndefined();
    expect(press('D', { shiftKey: true })).toBeUndefined();
    expect(press('x')).toBeUndefined();
  });

  it('lists every key it knows in the ? overlay', () => {
    const listed = APPROVAL_KEYS.map(({ keys }) => keys).join(' ');
    for (const key of ['A', 'Shift+A', 'D', 'S', 'T', 'R', 'E', 'J', 'K', '?', 'Esc']) expect(listed).toContain(key);
  });
});
