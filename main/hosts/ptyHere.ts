import { createRequire } from 'node:module';
import { providePty } from '../tools/shell/ptyLoader';

/**
 * Lets shells in this process run in a pseudo-terminal. Only the tool process (and tests that run
 * a tool in place) call it: this module is the one place node-pty is required, and the desktop
 * main bundle never reaches it.
 */
export function usePtyHere(): void {
  const requireHere = createRequire(import.meta.url);
  providePty(() => requireHere('node-pty') as typeof import('node-pty'));
}
