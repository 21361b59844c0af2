import { describe, expect, it } from 'vitest';
import { DRAFT_REASONS_KEY, DraftReasons } from '../../renderer/store/draftReasons';
import type { KeyValueStore } from '../../renderer/store/sessionStore';
import { rememberedTab, rememberTab, TAB_KEY } from '../../renderer/views/rememberedTab';
import { memoryStore } from './fixtures';

/** Storage the browser blocked: every call throws. */
const blockedStore: KeyValueStore = {
  getItem: () => {
    throw new Error('SecurityError');
  },
  setItem: () => {
    throw new Error('QuotaExceededError');
  },
  removeItem: () => {
    throw new Error('SecurityError');
  },
};

describe('the remembered tab', () => {
  it('comes back after a reload, and is Live the first time or when the stored value is not a tab', () => {
    const store = memoryStore();
    expect(rememberedTab(store)).toBe('Live');
    rememberTab(store, 'Approvals');
    expect(store.items.get(TAB_KEY)).toBe('Approvals');
    expect(rememberedTab(store)).toBe('Approvals');
    store.items.set(TAB_KEY, 'Preferences');
    expect(rememberedTab(store)).toBe('Live');
  });

  it('falls back to Live when storage is missing or blocked', () => {
    expect(rememberedTab(undefined)).toBe('Live');
    expect(() => rememberTab(blockedStore, 'Audit')).not.toThrow();
    expect(rememberedTab(blockedStore)).toBe('Live');
  });
});

describe('DraftReasons', () => {
  it('keeps a draft per approval id across instances (a reload) until it is forgotten', () => {
    const store = memoryStore();
    new DraftReasons(store).set('a1', 'not this file');
    new DraftReasons(store).set('a2', 'wrong branch');
    const reloaded = new DraftReasons(store);
    expect(reloaded.get('a1')).toBe('not this file');
    expect(reloaded.get('a2')).toBe('wrong branch');
    expect(reloaded.get('a3')).toBe('');
    reloaded.forget('a1');
    expect(reloaded.get('a1')).toBe('');
    reloaded.set('a2', '');
    expect(store.items.has(DRAFT_REASONS_KEY)).toBe(false);
  });

  it('drops the drafts of prompts that are no longer pending', () => {
    const drafts = new DraftReasons(memoryStore());
    drafts.set('a1', 'one');
    drafts.set('a2', 'two');
    drafts.keepOnly(['a2', 'a9']);
    expect([drafts.get('a1'), drafts.get('a2')]).toEqual(['', 'two']);
  });

  it('reads a damaged or foreign value as no drafts, and survives blocked storage', () => {
    const store = memoryStore();
    for (const damaged of ['{not json', '["a1"]', '{"a1": 42}', 'null']) {
      store.items.set(DRAFT_REASONS_KEY, damaged);
      expect(new DraftReasons(store).get('a1')).toBe('');
    }
    const blocked = new DraftReasons(blockedStore);
    expect(() => blocked.set('a1', 'x')).not.toThrow();
    expect(blocked.get('a1')).toBe('');
  });
});
