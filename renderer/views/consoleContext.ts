import { createContext, useContext } from 'react';
import { useStore } from 'zustand';
import type { ConsoleState } from '../store/consoleState';
import type { ConsoleStore } from '../store/consoleStore';
import type { ConsoleSync } from '../store/consoleSync';

/** The store the views read and the sync they ask to act (decide, verify). */
export interface ConsoleServices {
  store: ConsoleStore;
  sync: ConsoleSync;
}

/** Provided once by main.tsx. */
export const ConsoleContext = createContext<ConsoleServices | null>(null);

function useServices(): ConsoleServices {
  const services = useContext(ConsoleContext);
  if (!services) throw new Error('a console view was rendered outside ConsoleContext');
  return services;
}

/** Reads a slice of the console state; re-renders only when that slice changes. */
export function useConsoleState<T>(selector: (state: ConsoleState) => T): T {
  return useStore(useServices().store, selector);
}

/** The sync, for actions (answering a prompt, checking the chain). */
export function useConsoleSync(): ConsoleSync {
  return useServices().sync;
}
