import { useSyncExternalStore } from 'react';

/** What the person chose: follow the system, or always light, or always dark. */
export type ThemePreference = 'system' | 'light' | 'dark';
/** The theme the console is drawn in. */
export type Theme = 'light' | 'dark';

export const THEME_PREFERENCES: readonly ThemePreference[] = ['system', 'light', 'dark'];
const STORAGE_KEY = 'toolgate.theme';
const LIGHT_QUERY = '(prefers-color-scheme: light)';

/** The theme a preference comes to, given whether the system prefers light. */
export function resolveTheme(preference: ThemePreference, systemPrefersLight: boolean): Theme {
  if (preference === 'system') return systemPrefersLight ? 'light' : 'dark';
  return preference;
}

/** A stored preference, or 'system' when none (or an unknown one) is stored. */
export function parsePreference(stored: string | null): ThemePreference {
  return THEME_PREFERENCES.includes(stored as ThemePreference) ? (stored as ThemePreference) : 'system';
}

/**
 * The console's theme: the person's preference (kept in localStorage, per browser) and the system's,
 * applied as `<html data-theme>`, which the stylesheets key their colours on. Editors and terminals
 * that draw their own colours (Monaco, xterm.js) subscribe.
 */
class ThemeController {
  private preference: ThemePreference;
  private readonly media: MediaQueryList | undefined;
  private readonly listeners = new Set<() => void>();
  private current: Theme;

  constructor() {
    this.preference = parsePreference(readStored());
    this.media = typeof matchMedia === 'function' ? matchMedia(LIGHT_QUERY) : undefined;
    this.current = resolveTheme(this.preference, this.media?.matches ?? false);
    this.media?.addEventListener('change', () => this.update());
    this.apply();
  }

  get theme(): Theme {
    return this.current;
  }

  get chosen(): ThemePreference {
    return this.preference;
  }

  /** Keeps a new preference and redraws in it. */
  choose(preference: ThemePreference): void {
    this.preference = preference;
    try {
      localStorage.setItem(STORAGE_KEY, preference);
    } catch {
      // storage may be unavailable (a private window); the choice then lasts until the page closes
    }
    this.update();
  }

  /** Calls `listener` whenever the theme or the preference changes; returns the unsubscribe. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private update(): void {
    this.current = resolveTheme(this.preference, this.media?.matches ?? false);
    this.apply();
    for (const listener of [...this.listeners]) listener();
  }

  private apply(): void {
    if (typeof document !== 'undefined') document.documentElement.dataset.theme = this.current;
  }
}

function readStored(): string | null {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null;
  }
}

let controller: ThemeController | undefined;

/** The one theme controller of this page (made on first use). */
export function consoleTheme(): ThemeController {
  controller ??= new ThemeController();
  return controller;
}

/** The theme and the preference, re-rendering when either changes. */
export function useTheme(): { theme: Theme; preference: ThemePreference } {
  const themeController = consoleTheme();
  const theme = useSyncExternalStore(themeController.subscribe, () => themeController.theme, () => themeController.theme);
  const preference = useSyncExternalStore(themeController.subscribe, () => themeController.chosen, () => themeController.chosen);
  return { theme, preference };
}

/** Colours for an xterm.js terminal in a theme (its ANSI colours stay xterm's own). */
export function terminalColors(theme: Theme): { background: string; foreground: string; cursor: string; selectionBackground: string } {
  return theme === 'light'
    ? { background: '#fbfbfc', foreground: '#1f2328', cursor: '#1f2328', selectionBackground: '#b6d3ff' }
    : { background: '#111317', foreground: '#e4e6eb', cursor: '#e4e6eb', selectionBackground: '#3a4a66' };
}

/** Monaco's built-in theme for a console theme. */
export function editorTheme(theme: Theme): 'vs' | 'vs-dark' {
  return theme === 'light' ? 'vs' : 'vs-dark';
}
