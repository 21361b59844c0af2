import { GateError } from '../../../../shared/errors';
import type { SourceLoader } from '../manifestFile';

/** Loads a manifest's wasmSource source (not available yet: refused with a clear error). */
export const loadWasmSource: SourceLoader = async (manifest) => {
  throw new GateError('EVALIDATION', `tool manifest ${manifest.name}: source kind ${manifest.source.kind} is not supported yet`);
};
