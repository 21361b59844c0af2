import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { detectSandbox } from '../../main/hosts/sandbox';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

// Whether bubblewrap can make a sandbox is found out by running it; a bubblewrap standing in for the
// real one counts each run in a file, and makes a sandbox or not as the test says.

let folder: string | undefined;
afterEach(() => {
  if (folder) removeTempFolder(folder);
  folder = undefined;
});

/** A bubblewrap that logs each run and answers as 0.8.0; its trial sandbox fails while `broken` exists. */
function standIn(): { command: string; runs: () => number; breakIt: () => void; mend: () => void } {
  folder = makeTempFolder();
  const log = join(folder, 'runs');
  const broken = join(folder, 'broken');
  const command = join(folder, 'bwrap');
  writeFileSync(log, '');
  writeFileSync(
    command,
    [
      '#!/bin/sh',
      `echo run >> '${log}'`,
      'case "$1" in --version) echo "bubblewrap 0.8.0"; exit 0;; --help) echo "  --size BYTES"; exit 0;; esac',
      `if [ -e '${broken}' ]; then echo "bwrap: No permissions to create new namespace" >&2; exit 1; fi`,
      'exit 0',
      '',
    ].join('\n'),
  );
  chmodSync(command, 0o755);
  return {
    command,
    runs: () => readFileSync(log, 'utf8').split('\n').filter(Boolean).length,
    breakIt: () => writeFileSync(broken, ''),
    mend: () => removeTempFolder(broken),
  };
}

describe('finding bubblewrap', () => {
  it('tries a bubblewrap that worked only once in a process: the next gate starts without forking it again', () => {
    const bwrap = standIn();
    expect(detectSandbox('auto', bwrap.command)).toEqual({ kind: 'bubblewrap', command: bwrap.command, version: '0.8.0', sizedTmpfs: true });
    const runs = bwrap.runs();
    expect(runs).toBe(3);
    expect(detectSandbox('auto', bwrap.command)).toMatchObject({ kind: 'bubblewrap', version: '0.8.0' });
    expect(bwrap.runs()).toBe(runs);
  });

  it('tries one that could not make a sandbox at every start, so the next start finds it once it can', () => {
    const bwrap = standIn();
    bwrap.breakIt();
    expect(detectSandbox('auto', bwrap.command)).toEqual({ kind: 'none', reason: 'bubblewrap is installed but cannot make a sandbox here: bwrap: No permissions to create new namespace' });
    const failedRuns = bwrap.runs();
    bwrap.mend();
    expect(detectSandbox('auto', bwrap.command)).toMatchObject({ kind: 'bubblewrap' });
    expect(bwrap.runs()).toBe(failedRuns + 3);
  });
});
