import { mkdirSync, realpathSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { GateError } from '../../shared/errors';
import { isInside } from '../tools/workspacePath';

/** The real path of `path`, or of its nearest existing parent with the rest appended (it may not exist yet). */
function realOrPlanned(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = dirname(path);
    return parent === path ? path : resolve(realOrPlanned(parent), path.slice(parent.length + 1));
  }
}

/**
 * Checks and creates (mode 0700) the folder checkpoints go to. It must lie outside the state folder
 * and the workspace: an agent that can write there, or anyone who can rewrite the log with the state
 * folder in hand, could replace the checkpoints along with the log.
 */
export function prepareCheckpointDir(dir: string, places: { home: string; workspace: string }): string {
  const real = realOrPlanned(resolve(dir));
  for (const [what, path] of [
    ['the state folder', places.home],
    ['the workspace', places.workspace],
  ] as const) {
    if (isInside(realOrPlanned(resolve(path)), real)) {
      throw new GateError(
        'EPERMISSION',
        `the checkpoint folder ${dir} is inside ${what} (${path}), where ${what === 'the workspace' ? 'an agent can change it' : 'whoever rewrites the log can rewrite it too'}; ` +
          'pick a folder outside both, ideally on another disk or machine (e.g. --checkpoint-dir ~/toolgate-checkpoints)',
      );
    }
  }
  try {
    mkdirSync(real, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new GateError('EPERMISSION', `the checkpoint folder ${dir} cannot be created (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); create it yourself or pick another one`);
  }
  return real;
}
