import { readItem, writeItem, type KeyValueStore } from '../store/sessionStore';
import { TAB_NAMES, type TabName } from './TabBar';

/** The sessionStorage key of the tab the person last chose. */
export const TAB_KEY = 'toolgate.tab';

/** The tab to open on: the one chosen before a reload, else Live. */
export function rememberedTab(store: KeyValueStore | undefined): TabName {
  const stored = readItem(store, TAB_KEY);
  return TAB_NAMES.find((tab) => tab === stored) ?? 'Live';
}

/** Remembers the chosen tab for the next load of this browser tab. */
export function rememberTab(store: KeyValueStore | undefined, tab: TabName): void {
  writeItem(store, TAB_KEY, tab);
}
