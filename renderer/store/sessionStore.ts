/** The part of the Web Storage API the console uses (sessionStorage in the page, a Map in tests). */
export type KeyValueStore = Pick<Storage, 'getItem' | 'setItem' | 'removeItem'>;

/**
 * The tab's sessionStorage: it survives a reload but not closing the tab, and is never shared with
 * other tabs. Undefined where storage is unavailable (blocked, or no window); callers then forget.
 */
export function tabSessionStore(): KeyValueStore | undefined {
  try {
    return typeof sessionStorage === 'undefined' ? undefined : sessionStorage;
  } catch {
    return undefined;
  }
}

/** A stored string, or undefined when absent or storage throws. */
export function readItem(store: KeyValueStore | undefined, key: string): string | undefined {
  try {
    return store?.getItem(key) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Stores a string (or removes the key for undefined); a full or blocked storage is ignored. */
export function writeItem(store: KeyValueStore | undefined, key: string, value: string | undefined): void {
  try {
    if (value === undefined) store?.removeItem(key);
    else store?.setItem(key, value);
  } catch {
    // Remembering is a convenience; failing to is not worth interrupting the person.
  }
}
