import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { formatCheckpoint, parseCheckpoint } from '../../main/audit/checkpoint';
import { addSignature, openNote, parseVerifierKey, rawPublicKey, signerIds, signNote, verifierKeyText } from '../../main/audit/signedNote';

/** The example key and note of Go's golang.org/x/mod/sumdb/note documentation, the signed-note reference. */
const GO_VERIFIER = 'PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW';
const GO_TEXT = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n";
const GO_NOTE = `${GO_TEXT}\n\u2014 PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n`;

describe('C2SP signed notes', () => {
  it("opens the Go reference implementation's example note with its verifier key", () => {
    expect(openNote(GO_NOTE, parseVerifierKey(GO_VERIFIER))).toBe(GO_TEXT);
  });

  it('writes verifier keys as NAME+HASH+KEY with the key hash of SHA-256(name ‖ "\\n" ‖ 0x01 ‖ key)', () => {
    const { publicKey } = generateKeyPairSync('ed25519');
    const raw = rawPublicKey(publicKey);
    const text = verifierKeyText('toolgate-test', raw);
    const expectedHash = createHash('sha256').update(Buffer.concat([Buffer.from('toolgate-test\n'), Buffer.from([1]), raw])).digest().subarray(0, 4).toString('hex');
    expect(text).toBe(`toolgate-test+${expectedHash}+${Buffer.concat([Buffer.from([1]), raw]).toString('base64')}`);
    expect(parseVerifierKey(text).publicKey.equals(raw)).toBe(true);
  });

  it("reads a key whose base64 holds '+' (only the first two '+' separate the parts)", () => {
    const raw = Buffer.alloc(32, 0xfb);
    const text = verifierKeyText('gate-plus', raw);
    expect(text.split('+').length).toBeGreaterThan(3);
    expect(parseVerifierKey(text).publicKey.equals(raw)).toBe(true);
  });

  it('signs a checkpoint that opens with its own key and names the fault of every altered or foreign one', () => {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const other = generateKeyPairSync('ed25519');
    const verifier = parseVerifierKey(verifierKeyText('gate-a', rawPublicKey(publicKey)));
    const text = formatCheckpoint({ origin: 'toolgate/abc', size: 7, root: Buffer.alloc(32, 9) });
    const note = signNote(text, 'gate-a', privateKey);
    expect(note).toMatch(/^toolgate\/abc\n7\nCQkJ[A-Za-z0-9+/=]+\n\n\u2014 gate-a [A-Za-z0-9+/]{91}=\n$/);
    expect(parseCheckpoint(openNote(note, verifier))).toEqual({ origin: 'toolgate/abc', size: 7, root: Buffer.alloc(32, 9) });
    expect(() => openNote(note.replace('\n7\n', '\n8\n'), verifier)).toThrow(expect.objectContaining({ kind: 'bad-signature' }));
    expect(() => openNote(signNote(text, 'gate-a', other.privateKey), verifier)).toThrow(expect.objectContaining({ kind: 'other-key', message: expect.stringContaining('signed by gate-a+') }));
    expect(() => openNote(signNote(text, 'gate-b', privateKey), verifier)).toThrow(expect.objectContaining({ kind: 'other-key' }));
    for (const broken of ['', 'not a note', text, `${text}\n`, `${text}\n— gate-a !!!\n`, note.trimEnd()]) {
      expect(() => openNote(broken, verifier), JSON.stringify(broken)).toThrow(expect.objectContaining({ kind: 'malformed' }));
    }
  });

  it('adds a cosignature that opens with either key, as a note with several signature lines does in the Go reference', () => {
    const a = generateKeyPairSync('ed25519');
    const b = generateKeyPairSync('ed25519');
    const text = 'toolgate/abc\ntoolgate checkpoint key\nentry 1\n';
    const note = addSignature(signNote(text, 'gate-new', a.privateKey), 'gate-old', b.privateKey);
    expect(note).toMatch(/^toolgate\/abc\ntoolgate checkpoint key\nentry 1\n\n\u2014 gate-new [A-Za-z0-9+/]{91}=\n\u2014 gate-old [A-Za-z0-9+/]{91}=\n$/);
    expect(openNote(note, parseVerifierKey(verifierKeyText('gate-new', rawPublicKey(a.publicKey))))).toBe(text);
    expect(openNote(note, parseVerifierKey(verifierKeyText('gate-old', rawPublicKey(b.publicKey))))).toBe(text);
    expect(signerIds(note).map((id) => id.split('+')[0])).toEqual(['gate-new', 'gate-old']);
    // The Go example note with a second signature still opens with Go's key.
    expect(openNote(addSignature(GO_NOTE, 'gate-new', a.privateKey), parseVerifierKey(GO_VERIFIER))).toBe(GO_TEXT);
  });

  it('refuses checkpoint texts without an origin, a decimal size or a 32-byte root, naming the line', () => {
    expect(() => parseCheckpoint('toolgate/x\n7\n')).toThrow(/has 2 lines, not the 3/);
    expect(() => parseCheckpoint('toolgate/x\n')).toThrow(/has 1 line, not the 3/);
    expect(() => parseCheckpoint('toolgate/x\n-1\nAAAA\n')).toThrow(/tree size line "-1"/);
    expect(() => parseCheckpoint('toolgate/x\n7\nAAAA\n')).toThrow(/root hash line "AAAA" that is not 32 bytes/);
    expect(() => parseCheckpoint(`\n7\n${Buffer.alloc(32).toString('base64')}\n`)).toThrow(/origin line/);
  });

  it('refuses a verifier key with a wrong part, naming it', () => {
    expect(() => parseVerifierKey('justaname')).toThrow(/fewer than 3 parts/);
    expect(() => parseVerifierKey(GO_VERIFIER.replace('c74f20a3', 'c74f20a4'))).toThrow(/does not match its name and key/);
    expect(() => parseVerifierKey(GO_VERIFIER.replace('+AR', '+AS'))).toThrow(/no Ed25519 public key|does not match/);
  });
});
