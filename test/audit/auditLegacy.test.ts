/**
 * State folders written before the store moved to node:sqlite keep working: the fixture is a log
 * written by the better-sqlite3 store (four records of a real gate), and earlier gates left an
 * empty anchor file until their first record.
 */
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AuditStore } from '../../main/audit/auditStore';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { auditPaths, toolgate, writeRecords } from './auditFixture';

const LEGACY = resolve(__dirname, '../fixtures/legacyAudit');
let home: string;

beforeEach(() => {
  home = makeTempFolder();
});
afterEach(() => removeTempFolder(home));

describe('a log written by the better-sqlite3 store', () => {
  it('verifies through the CLI and the chain goes on from it', () => {
    for (const name of ['audit.db', 'audit.head']) copyFileSync(join(LEGACY, name), join(home, name));
    expect(toolgate(home, 'audit', 'verify')).toMatchObject({ code: 0, stdout: 'audit log intact: 4 records verified\n' });
    const store = new AuditStore(auditPaths(home));
    try {
      const [last] = store.list({ limit: 1 });
      expect(store.append({ callId: 'after-the-move', kind: 'invoked', payload: {} })).toMatchObject({ seq: 5, prevHash: last!.hash });
    } finally {
      store.close();
    }
    expect(toolgate(home, 'audit', 'verify').stdout).toContain('audit log intact: 5 records verified');
    expect(readFileSync(auditPaths(home).headPath, 'utf8')).toMatch(/^0{19}5 /);
  });
});

describe('an empty anchor file, as earlier gates left it before their first record', () => {
  it('beside an empty log, is no damage: verify passes and the gate writes the head into it', () => {
    new AuditStore(auditPaths(home)).close();
    writeFileSync(auditPaths(home).headPath, '');
    expect(toolgate(home, 'audit', 'verify')).toMatchObject({ code: 0, stdout: 'audit log intact: 0 records verified\n' });
    new AuditStore(auditPaths(home)).close();
    expect(readFileSync(auditPaths(home).headPath, 'utf8')).toMatch(/^0{20} 0{64}\n$/);
  });

  it('beside records, is damage: verify names it', () => {
    writeRecords(home, 3);
    writeFileSync(auditPaths(home).headPath, '');
    const run = toolgate(home, 'audit', 'verify');
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('is damaged: it is empty, not a seq and a hash');
  });
});
