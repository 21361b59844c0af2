/**
 * How `toolgate serve` is asked to stop: Ctrl+C, SIGTERM, a closed terminal, or the process that
 * started it gone. Listening starts before the command's code loads and lasts the process's life,
 * so a stop asked while the gate is still starting waits until it has started and then stops it
 * cleanly. A signal with no listener yet would kill it half-started: gate.json left behind,
 * looking like a gate that still runs.
 *
 * Ctrl+C in a terminal reaches every process of the job, and `npm start` passes it on again: the
 * first ask stops the gate; the ones after it change nothing.
 */

let asked: Promise<void> | undefined;
let answer: (() => void) | undefined;

/** Settles at the first ask; the first call starts listening for SIGINT and SIGTERM. */
export function stopRequested(): Promise<void> {
  if (!asked) {
    asked = new Promise<void>((resolve) => (answer = resolve));
    process.on('SIGINT', requestStop);
    process.on('SIGTERM', requestStop);
  }
  return asked;
}

/** Asks for the stop, as Ctrl+C does; listening starts here if it had not. */
export function requestStop(): void {
  void stopRequested();
  answer!();
}
