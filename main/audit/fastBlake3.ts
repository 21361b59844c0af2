import { createBLAKE3, type IHasher } from 'hash-wasm';
import { blake3Hex } from '../../shared/hash';

/**
 * BLAKE3 for reading the whole audit log: hash-wasm's WebAssembly BLAKE3 hashes about 7× faster
 * than the pure-JS one the renderer and the append path use, and gives the same bytes (the test
 * compares them). It loads asynchronously once; until then, or where WebAssembly cannot run, the
 * pure-JS hash answers, so a result never depends on which one ran. Main-process code only.
 */
let hasher: IHasher | undefined;
let loading: Promise<void> | undefined;

/** Loads the WebAssembly hash once; a failure to load leaves the pure-JS one in place. */
export function loadFastBlake3(): Promise<void> {
  loading ??= createBLAKE3().then(
    (created) => {
      hasher = created;
    },
    () => undefined,
  );
  return loading;
}

/** BLAKE3 of a UTF-8 string as 64 lowercase hex digits: the WebAssembly hash once loaded. */
export function fastBlake3Hex(text: string): string {
  if (!hasher) return blake3Hex(text);
  hasher.init();
  hasher.update(text);
  return hasher.digest('hex');
}
