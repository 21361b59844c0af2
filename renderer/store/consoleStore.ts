import { createStore, type StoreApi } from 'zustand/vanilla';
import type { ConnectionState } from '../bridge/connectionState';
import { initialConsoleState, type ConsoleState, type TabName } from './consoleState';

/** The console's zustand store (vanilla, so it is usable and testable without React). */
export type ConsoleStore = StoreApi<ConsoleState>;

/** A fresh store, open on `tab`; ConsoleSync fills it from the bridge. */
export function createConsoleStore(connection: ConnectionState = 'connecting', tab?: TabName): ConsoleStore {
  return createStore<ConsoleState>()(() => initialConsoleState(connection, tab));
}
