import type * as Monaco from 'monaco-editor/esm/vs/editor/editor.api.js';

/** The Monaco editor API. */
export type MonacoApi = typeof Monaco;

let loading: Promise<MonacoApi> | undefined;

/**
 * Loads Monaco on first use, as its own chunk, so the console starts fast and pays for the editor
 * only when a diff is shown. A failed load is retried by the next caller.
 */
export function loadMonaco(): Promise<MonacoApi> {
  loading ??= import('./monacoSetup').then(
    (module) => module.monaco,
    (error: unknown) => {
      loading = undefined;
      throw error;
    },
  );
  return loading;
}
