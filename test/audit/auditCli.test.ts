import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { tamper, toolgate as runToolgate, writeRecords } from './auditFixture';

let home: string;

beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => removeTempFolder(home));

function toolgate(...args: string[]) {
  return runToolgate(home, ...args);
}

describe('toolgate audit verify', () => {
  it('exits 0 and counts the records of an intact log', () => {
    writeRecords(home, 5);
    const run = toolgate('audit', 'verify');
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('audit log intact: 5 records verified');
    expect(run.code).toBe(0);
  });

  it('exits 1 and names the edited record after one row is changed in the SQLite file', () => {
    writeRecords(home, 5);
    tamper(home, (db) => db.prepare('UPDATE audit SET payload = ? WHERE seq = 3').run('{"note":"rewritten"}'));
    const run = toolgate('audit', 'verify');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('audit log broken at seq 3');
    expect(run.stdout).toBe('');
  });

  it('--json prints the report for scripts', () => {
    writeRecords(home, 5);
    tamper(home, (db) => db.prepare('DELETE FROM audit WHERE seq = 2').run());
    const run = toolgate('audit', 'verify', '--json');
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout)).toMatchObject({ ok: false, records: 1, firstBadSeq: 2 });
  });

  it('exits 2 with a clear message when there is no audit log yet', () => {
    const run = toolgate('audit', 'verify');
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('no audit log at');
  });

  it('audit list prints the latest records, oldest of them first', () => {
    writeRecords(home, 5);
    const run = toolgate('audit', 'list', '--limit', '2', '--json');
    expect(run.code).toBe(0);
    expect((JSON.parse(run.stdout) as Array<{ seq: number }>).map((record) => record.seq)).toEqual([4, 5]);
  });
});
