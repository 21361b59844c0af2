/** Closes the gate once, however many times quitting asks. */
export interface GateShutdown {
  /** Closes the gate (at most once); resolves when closed, failed or timed out. */
  run(): Promise<void>;
  /** Whether run() has settled, so quitting may go ahead. */
  readonly finished: boolean;
}

/** How long quitting waits for the gate to close before it gives up on it. */
export const GATE_CLOSE_TIMEOUT_MS = 5_000;

/**
 * Wraps the gate's close so that `before-quit`, which may fire several times, closes it exactly
 * once and never hangs the quit: a failure is logged, a close slower than the timeout abandoned.
 */
export function createGateShutdown(close: () => Promise<void>, timeoutMs = GATE_CLOSE_TIMEOUT_MS): GateShutdown {
  let running: Promise<void> | undefined;
  let finished = false;
  return {
    get finished() {
      return finished;
    },
    run() {
      running ??= (async () => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        const timeout = new Promise<void>((resolve) => {
          timer = setTimeout(() => {
            console.warn(`[toolgate] the gate did not close within ${timeoutMs} ms; quitting anyway`);
            resolve();
          }, timeoutMs);
        });
        try {
          await Promise.race([close(), timeout]);
        } catch (error) {
          console.error(`[toolgate] closing the gate failed: ${(error as Error).message}`);
        } finally {
          clearTimeout(timer);
          finished = true;
        }
      })();
      return running;
    },
  };
}
