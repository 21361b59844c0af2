import type * as NodePty from 'node-pty';

/**
 * How node-pty (a native addon) is loaded, given only where tools run: the tool-process entry
 * (main/hosts/ptyHere.ts) and tests that run a tool in place. The gate process never provides
 * it, so no code that the desktop main bundle reaches can load an addon built for another ABI.
 */
let provider: (() => typeof NodePty) | undefined;
let loaded: typeof NodePty | null | undefined;
let forcedPipes = false;

/** Says how this process loads node-pty. */
export function providePty(load: () => typeof NodePty): void {
  provider = load;
  loaded = undefined;
}

/** node-pty when this process provides it and it loads here, null otherwise (shells then run on pipes); loaded once. */
export function loadPty(): typeof NodePty | null {
  if (forcedPipes || !provider) return null;
  if (loaded === undefined) {
    try {
      loaded = provider();
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** Makes shells use pipes, as where node-pty is missing (tests of the fallback). */
export function forcePipes(force: boolean): void {
  forcedPipes = force;
}
