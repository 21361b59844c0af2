import { describe, expect, it } from 'vitest';
import { forgetAccessToken, takeAccessToken, TOKEN_STORAGE_KEY, type TokenSources } from '../../renderer/bridge/accessToken';

function browser(hash: string, stored?: string) {
  const storage = new Map<string, string>(stored ? [[TOKEN_STORAGE_KEY, stored]] : []);
  const replaced: string[] = [];
  const sources: TokenSources = {
    location: { hash, pathname: '/', search: '?x=1' },
    storage: {
      getItem: (key) => storage.get(key) ?? null,
      setItem: (key, value) => void storage.set(key, value),
      removeItem: (key) => void storage.delete(key),
    },
    history: { replaceState: (_data, _unused, url) => void replaced.push(url ?? '') },
  };
  return { sources, storage, replaced };
}

const TOKEN = 'ab12'.repeat(16);

describe('takeAccessToken', () => {
  it('takes the token from the fragment, stores it and strips the fragment', () => {
    const { sources, storage, replaced } = browser(`#token=${TOKEN}`);
    expect(takeAccessToken(sources)).toBe(TOKEN);
    expect(storage.get(TOKEN_STORAGE_KEY)).toBe(TOKEN);
    expect(replaced).toEqual(['/?x=1']);
  });

  it('falls back to the stored token on reload', () => {
    const { sources, replaced } = browser('', TOKEN);
    expect(takeAccessToken(sources)).toBe(TOKEN);
    expect(replaced).toEqual([]);
  });

  it('has no token without fragment or storage, and refuses one that is not token-shaped', () => {
    expect(takeAccessToken(browser('').sources)).toBeUndefined();
    const odd = browser('#token=has%20space%3Bx');
    expect(takeAccessToken(odd.sources)).toBeUndefined();
    expect(odd.replaced).toEqual(['/?x=1']);
  });

  it('forgets the stored token', () => {
    const { sources, storage } = browser('', TOKEN);
    forgetAccessToken(sources);
    expect(storage.has(TOKEN_STORAGE_KEY)).toBe(false);
  });
});
