/**
 * Signed checkpoints against someone who holds the state folder but not the checkpoint folder:
 * they can edit the database, recompute every chain hash and rewrite (or delete) the head anchor,
 * so plain `toolgate audit verify` passes; `audit verify --checkpoint` still fails and names the
 * first changed record. Every other bad checkpoint (cut log, another key, another log, a broken
 * file, a size beyond the log) is a named failure with a non-zero exit. All through the real CLI.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { formatCheckpoint } from '../../main/audit/checkpoint';
import { prepareCheckpointDir } from '../../main/audit/checkpointFolder';
import { readCheckpointKey } from '../../main/audit/checkpointKey';
import { signNote } from '../../main/audit/signedNote';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { rewriteRecord as rewriteChain, writeCheckpointedLog } from './checkpointFixture';
import { auditPaths, tamper, toolgate as realToolgate } from './auditFixture';
import { runCliHere } from '../integration/cliHere';

let root: string;
let home: string;
let folder: string;

beforeEach(() => {
  root = makeTempFolder();
  home = join(root, 'home');
  folder = join(root, 'checkpoints');
  mkdirSync(home);
});
afterEach(() => removeTempFolder(root));

/** A command run in this process, through the same main() the built CLI runs. */
function toolgate(...args: string[]) {
  return runCliHere(args, home);
}

/** The built CLI in a process of its own, as a person runs it: for the tests docs/guards.md names as through the real CLI. */
async function realCli(...args: string[]) {
  return realToolgate(home, ...args);
}

/** A log with checkpoints written as a gate writes them; the newest checkpoint's path. */
function writeLog(count: number, every = 10): string {
  return writeCheckpointedLog({ root, home, folder }, count, every);
}

/** Edits one record and re-hashes the chain and head anchor to match, as an attacker with the database would. */
function rewriteRecord(seq: number, payload: unknown): void {
  rewriteChain(home, seq, payload);
}

describe('audit verify --checkpoint', () => {
  it('verifies a log against the checkpoint its gate signed, and prints the key that signed it', async () => {
    const checkpoint = writeLog(25);
    const key = (await toolgate('audit', 'key'));
    expect(key.code).toBe(0);
    // Named by the log's origin, the checkpoint's first line.
    const origin = readFileSync(checkpoint, 'utf8').split('\n')[0]!;
    expect(key.stdout.trim()).toMatch(new RegExp(`^${origin}\\+[0-9a-f]{8}\\+[A-Za-z0-9+/]{44}$`));
    const run = (await toolgate('audit', 'verify', '--checkpoint', checkpoint));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('audit log intact: 25 records verified');
    expect(run.stdout).toContain('checkpoint verified: records 1 to 25 are the ones signed');
    // The same with the key given explicitly, as someone checking from another machine does.
    expect((await toolgate('audit', 'verify', '--checkpoint', checkpoint, '--key', key.stdout.trim())).code).toBe(0);
  });

  it('catches one record edited with the chain and head anchor recomputed, which plain verify passes, and names that record', async () => {
    const checkpoint = writeLog(40);
    rewriteRecord(17, { tool: 'read_file', arguments: { path: 'README.md' }, step: 16 });
    const plain = (await realCli('audit', 'verify'));
    expect(plain.code).toBe(0);
    expect(plain.stdout).toContain('audit log intact: 40 records verified');

    const run = (await realCli('audit', 'verify', '--checkpoint', checkpoint));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('checkpoint check failed (rewritten, at seq 17)');
    expect(run.stderr).toContain('record 17 is not the record the gate wrote and signed');
    const json = (await realCli('audit', 'verify', '--checkpoint', checkpoint, '--json'));
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: true, checkpoint: { ok: false, problem: 'rewritten', firstBadSeq: 17, checkpointSize: 40, records: 40 } });
  });

  it('still catches the rewrite with the head anchor deleted, and without the kept leaf hashes says the signed records changed', async () => {
    const checkpoint = writeLog(40);
    rewriteRecord(3, { step: 'nothing happened' });
    rmSync(auditPaths(home).headPath);
    const elsewhere = join(root, 'copied.checkpoint');
    writeFileSync(elsewhere, readFileSync(checkpoint));
    // A copy away from its key history says which key it must be checked against.
    const unsaid = (await toolgate('audit', 'verify', '--checkpoint', elsewhere));
    expect(unsaid.code).toBe(2);
    expect(unsaid.stderr).toContain(`no key history beside ${elsewhere}`);
    expect(unsaid.stderr).toContain('pass --key NAME+HASH+KEY');
    const run = (await toolgate('audit', 'verify', '--checkpoint', elsewhere, '--key', (await toolgate('audit', 'key')).stdout.trim()));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('checkpoint check failed (rewritten)');
    expect(run.stderr).toContain('do not hash to the root the checkpoint signed');
    expect((await toolgate('audit', 'verify', '--checkpoint', checkpoint)).stderr).toContain('rewritten, at seq 3');
  });

  it('without the kept leaf hashes, narrows the changed record down by the older numbered checkpoints', async () => {
    const checkpoint = writeLog(40, 10);
    rewriteRecord(17, { step: 'nothing happened' });
    rmSync(join(folder, readdirSync(folder).find((name) => name.endsWith('.leaves'))!));
    const run = (await toolgate('audit', 'verify', '--checkpoint', checkpoint));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('checkpoint check failed (rewritten)');
    expect(run.stderr).toContain('By the older checkpoints beside it, the first changed record is one of records 11 to 20');
  });

  it('catches a log cut back below the checkpoint, even with the chain consistent and the anchor moved', async () => {
    const checkpoint = writeLog(30);
    tamper(home, (db) => {
      db.prepare('DELETE FROM audit WHERE seq > 20').run();
      const { hash } = db.prepare('SELECT hash FROM audit WHERE seq = 20').get() as { hash: string };
      writeFileSync(auditPaths(home).headPath, `${String(20).padStart(20, '0')} ${hash}\n`);
    });
    expect((await toolgate('audit', 'verify')).code).toBe(0);
    const run = (await toolgate('audit', 'verify', '--checkpoint', checkpoint, '--json'));
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).checkpoint).toMatchObject({ ok: false, problem: 'truncated', firstBadSeq: 21, checkpointSize: 30, records: 20 });
  });

  it('refuses a checkpoint signed by another key, naming the signer and the key expected', async () => {
    const checkpoint = writeLog(12);
    const note = readFileSync(checkpoint, 'utf8');
    const text = note.slice(0, note.lastIndexOf('\n\n') + 1);
    const forged = join(folder, 'forged.checkpoint');
    writeFileSync(forged, signNote(text, 'someone-else', generateKeyPairSync('ed25519').privateKey));
    let run = (await realCli('audit', 'verify', '--checkpoint', forged));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/checkpoint check failed \(other-key\): .*forged\.checkpoint is signed by someone-else\+[0-9a-f]{8}, which is none of the keys trusted \(the key history in .*: toolgate\/[0-9a-f]{32}\+[0-9a-f]{8}\)/);
    run = (await realCli('audit', 'verify', '--checkpoint', forged, '--key', (await realCli('audit', 'key')).stdout.trim()));
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/\(other-key\): .*signed by someone-else\+[0-9a-f]{8}, which is none of the keys trusted/);
  });

  it('refuses a checkpoint whose text was changed after signing', async () => {
    const checkpoint = writeLog(12);
    writeFileSync(checkpoint, readFileSync(checkpoint, 'utf8').replace('\n12\n', '\n11\n'));
    const run = (await toolgate('audit', 'verify', '--checkpoint', checkpoint));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(bad-signature)');
  });

  it('says a checkpoint of another log is of another log', async () => {
    writeLog(8);
    const key = readCheckpointKey(home)!;
    const other = join(folder, 'other.checkpoint');
    writeFileSync(other, signNote(formatCheckpoint({ origin: 'toolgate/0123456789abcdef0123456789abcdef', size: 8, root: Buffer.alloc(32, 7) }), key.name, key.privateKey));
    const run = (await toolgate('audit', 'verify', '--checkpoint', other));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(other-log)');
    expect(run.stderr).toContain('is a checkpoint of the log toolgate/0123456789abcdef0123456789abcdef, but this audit log is toolgate/');
  });

  it('names the line at fault in a malformed checkpoint', async () => {
    writeLog(8);
    const key = readCheckpointKey(home)!;
    const broken = join(root, 'broken.checkpoint');
    writeFileSync(broken, signNote('toolgate/abc\neight\nAAAA\n', key.name, key.privateKey));
    let run = (await toolgate('audit', 'verify', '--checkpoint', broken));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(malformed)');
    expect(run.stderr).toContain('has a tree size line "eight" that is not a decimal number');
    writeFileSync(broken, 'not a checkpoint at all\n');
    run = (await toolgate('audit', 'verify', '--checkpoint', broken));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('it has no blank line between the text and the signatures');
    // In a state folder that never signed one, the file is still said to be no checkpoint, before any key is asked for.
    rmSync(join(home, 'checkpoint-key'));
    run = (await toolgate('audit', 'verify', '--checkpoint', broken));
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(malformed)');
    run = (await toolgate('audit', 'verify', '--checkpoint', join(root, 'missing.checkpoint')));
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('missing.checkpoint: no such file');
  });

  it('refuses a checkpoint from the future: signed over more records than the log holds', async () => {
    writeLog(8);
    const key = readCheckpointKey(home)!;
    const checkpoint = readFileSync(join(folder, readdirSync(folder).find((name) => /^[0-9a-f]{32}\.checkpoint$/.test(name))!), 'utf8');
    const origin = checkpoint.split('\n')[0]!;
    const future = join(folder, 'future.checkpoint');
    writeFileSync(future, signNote(formatCheckpoint({ origin, size: 9000, root: Buffer.alloc(32, 1) }), key.name, key.privateKey));
    const run = (await toolgate('audit', 'verify', '--checkpoint', future, '--json'));
    expect(run.code).toBe(1);
    expect(JSON.parse(run.stdout).checkpoint).toMatchObject({ ok: false, problem: 'truncated', checkpointSize: 9000, records: 8 });
  });

  it('checks an older numbered checkpoint from the history too', async () => {
    writeLog(25, 10);
    const numbered = readdirSync(folder).filter((name) => /\.\d{12}\.checkpoint$/.test(name)).sort();
    expect(numbered.map((name) => Number(name.split('.')[1]))).toEqual([0, 10, 20, 25]);
    const run = (await toolgate('audit', 'verify', '--checkpoint', join(folder, numbered[1]!)));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('records 1 to 10 are the ones signed');
    expect(run.stdout).toContain("log's 25 records extend them");
  });

  it('counts a log of one record as one record', async () => {
    const checkpoint = writeLog(1);
    const run = (await toolgate('audit', 'verify', '--checkpoint', checkpoint));
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("records 1 to 1 are the ones signed (by toolgate/");
    expect(run.stdout).toContain("and the log's 1 record extends them (consistency proof of 0 hashes verified)");
  });

  it('keeps the key in the state folder, readable by its owner alone, and the checkpoints outside it', async () => {
    writeLog(3);
    expect(statSync(join(home, 'checkpoint-key')).mode & 0o777).toBe(0o600);
    expect(() => prepareCheckpointDir(join(home, 'checkpoints'), { home, workspace: join(root, 'ws') })).toThrow(/inside the state folder/);
  });
});

describe('audit prove', () => {
  it('prints an inclusion proof of one record that verifies against the root a checkpoint signs', async () => {
    const checkpoint = writeLog(21);
    const run = (await toolgate('audit', 'prove', '5', '--json'));
    expect(run.code).toBe(0);
    const proof = JSON.parse(run.stdout);
    expect(proof).toMatchObject({ seq: 5, leafIndex: 4, treeSize: 21 });
    expect(proof.proof).toHaveLength(5);
    expect(readFileSync(checkpoint, 'utf8').split('\n')[2]).toBe(proof.rootHash);
    const text = (await toolgate('audit', 'prove', '21'));
    expect(text.stdout).toContain('record 21 (leaf index 20) in the tree of 21 records');
    expect((await toolgate('audit', 'prove', '22')).stderr).toContain('record 22 is not in a tree of 21 records');
  });
});
