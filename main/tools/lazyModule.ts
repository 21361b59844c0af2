import { createRequire } from 'node:module';

const requireHere = createRequire(import.meta.url);

/**
 * A dependency loaded the first time it is used, not when the module naming it is: a tool process
 * serves the few tools of its sandbox profile, and an echo should not carry the HTML converter in its
 * memory (about 13 MB, in every process of the pool).
 */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireHere(specifier) as T);
}
