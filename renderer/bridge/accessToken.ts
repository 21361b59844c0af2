/** Where the console keeps the access token for the life of the tab (survives reloads, not the tab). */
export const TOKEN_STORAGE_KEY = 'toolgate.token';

/** The browser facilities the token comes from; passed in so the logic runs under tests too. */
export interface TokenSources {
  location: { readonly hash: string; readonly pathname: string; readonly search: string };
  storage: {
    getItem(key: string): string | null;
    setItem(key: string, value: string): void;
    removeItem(key: string): void;
  };
  history: { replaceState(data: unknown, unused: string, url?: string): void };
}

// The token travels as a WebSocket subprotocol, so it must be an HTTP token; hex and base64url are.
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{8,512}$/;

/**
 * Takes the token from the URL fragment (`#token=HEX`), keeps it in session storage and removes the
 * fragment from the address bar, so it is not left on screen, in history or in a copied link.
 * Falls back to the stored token (a reload). Returns undefined when there is none.
 */
export function takeAccessToken(sources: TokenSources): string | undefined {
  const fragment = new URLSearchParams(sources.location.hash.replace(/^#/, ''));
  const fromUrl = fragment.get('token');
  if (fromUrl !== null) {
    sources.history.replaceState(null, '', sources.location.pathname + sources.location.search);
    if (TOKEN_SHAPE.test(fromUrl)) {
      tryStorage(() => sources.storage.setItem(TOKEN_STORAGE_KEY, fromUrl));
      return fromUrl;
    }
  }
  const stored = tryStorage(() => sources.storage.getItem(TOKEN_STORAGE_KEY));
  return stored && TOKEN_SHAPE.test(stored) ? stored : undefined;
}

/** Drops the stored token (after the gate refused it), so a reload asks for a fresh URL. */
export function forgetAccessToken(sources: Pick<TokenSources, 'storage'>): void {
  tryStorage(() => sources.storage.removeItem(TOKEN_STORAGE_KEY));
}

// Storage throws when the browser disables it; the console then works for this page load only.
function tryStorage<T>(action: () => T): T | undefined {
  try {
    return action();
  } catch {
    return undefined;
  }
}
