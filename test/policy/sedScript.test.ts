/**
 * The sed script reader agrees with GNU sed itself: a script has an r, R, w, W, e or s///e command
 * exactly when `sed --sandbox` (which refuses those) refuses it, and a script the reader cannot read
 * is one sed refuses to compile; the files its w commands name are the files sed creates.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sedEffects } from '../../main/policy/sedScript';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

let folder: string;
beforeEach(() => {
  folder = makeTempFolder();
});
afterEach(() => removeTempFolder(folder));

/** How GNU sed takes the script: runs it, refuses it in --sandbox only (it has r, w or e), or refuses to compile it. */
function sedVerdict(script: string): 'plain' | 'sandbox' | 'invalid' {
  const run = spawnSync('sed', ['--sandbox', '-n', script], { cwd: folder, input: '', encoding: 'utf8' });
  if (run.status === 0) return 'plain';
  return /disabled in sandbox mode/.test(run.stderr) ? 'sandbox' : 'invalid';
}

const SCRIPTS = [
  's/error/warning/g',
  's/r/w/',
  '/w/d',
  'y/rw/wr/',
  '/^#/d;s/e/x/2',
  's|a|b|',
  '1~2p;$!N',
  '/start/,/end/{p;=}',
  '0,/x/d',
  ':r\nb r',
  't e\n:e',
  'a rewrite this\np',
  'i\\\nwrite here\np',
  '# r comment\np',
  'l 5;q5',
  '\\,x,d',
  '/a\\/r/d',
  's/a\\/w/b/',
  'r notes.txt',
  '$R notes.txt',
  '1w out.txt',
  '$!W out2.txt',
  's/a/b/gw out3.txt',
  's/x/y/pw out4.txt',
  '{\nr notes.txt\n}',
  '1e date',
  'e',
  's/x/y/e',
  '\\,x, r notes.txt',
  'k',
  's/a/b',
  's/a/b/q',
];

describe('sedEffects', () => {
  it.each(SCRIPTS)('%j: r, w and e found exactly when GNU sed --sandbox refuses the script, and unreadable exactly when sed cannot compile it', (script) => {
    const effects = sedEffects(script);
    const verdict = sedVerdict(script);
    expect(effects.unreadable !== undefined, `unreadable (${effects.unreadable})`).toBe(verdict === 'invalid');
    if (verdict === 'invalid') return;
    const touches = effects.reads.length + effects.writes.length + effects.commands.length > 0 || effects.runsInput !== undefined;
    expect(touches).toBe(verdict === 'sandbox');
  });

  it('names the files sed creates for its w commands', () => {
    const script = '1w out.txt\n$!W out2.txt\ns/a/b/gw out3.txt\ns/x/y/pw out4.txt';
    const run = spawnSync('sed', ['-n', script], { cwd: folder, input: 'a\nx\n', encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(sedEffects(script).writes.sort()).toEqual(readdirSync(folder).sort());
  });
});
