/**
 * The one-use grant an allowed Bash call is run under, in process: it runs only the text that was
 * judged (its SHA-256, compared whole), and once spent or never issued it says why nothing runs.
 */
import { describe, expect, it } from 'vitest';
import { GRANT_STARTS_MS, grantToken, hashMatches, newGrant, SpentGrants, startingGrants } from '../../main/hooks/bashGrants';
import { commandSha256 } from '../../main/hooks/bashRun';

describe('a Bash grant', () => {
  it('runs only the approved text: another text, a prefix of its hash or a longer one does not match', () => {
    const grant = newGrant('cat notes.txt', '/work', 120_000);
    expect(grantToken(grant)).toEqual({ grant: grant.id, sha256: commandSha256('cat notes.txt') });
    expect(hashMatches(grant, commandSha256('cat notes.txt'))).toBe(true);
    expect(hashMatches(grant, commandSha256('cat notes.txt; cat ~/.ssh/id_rsa'))).toBe(false);
    expect(hashMatches(grant, commandSha256('cat notes.txt '))).toBe(false);
    expect(hashMatches(grant, grant.sha256.slice(0, 32))).toBe(false);
    expect(hashMatches(grant, `${grant.sha256}00`)).toBe(false);
    expect(hashMatches(grant, '')).toBe(false);
  });

  it('is issued with an id of its own each time, so one grant cannot be presented for another', () => {
    const first = newGrant('ls', '/work', 1000);
    const second = newGrant('ls', '/work', 1000);
    expect(first.id).toMatch(/^[0-9a-f]{32}$/);
    expect(second.id).not.toBe(first.id);
  });

  it('once spent says why it cannot run again, and an id never issued is named as such', () => {
    const spent = new SpentGrants();
    const grant = newGrant('ls', '/work', 1000);
    spent.spend(grant.id, 'was used already: each grant runs its command once');
    expect(spent.refusal(grant.id)).toBe('its grant was used already: each grant runs its command once');
    expect(spent.refusal(newGrant('ls', '/work', 1000).id)).toMatch(/^this gate issued no such grant/);
  });

  it('counts as about to run while Claude Code may still start it, and not once it was left unstarted past that', () => {
    const grant = newGrant('ls', '/work', 1000);
    expect(startingGrants([grant], grant.issuedAt)).toBe(1);
    expect(startingGrants([grant], grant.issuedAt + GRANT_STARTS_MS - 1)).toBe(1);
    expect(startingGrants([grant], grant.issuedAt + GRANT_STARTS_MS)).toBe(0);
    // A grant issued at a fractional millisecond whose difference to its deadline rounds below it still ends there.
    const fractional = { issuedAt: 55_555.555 };
    expect(startingGrants([fractional], fractional.issuedAt + GRANT_STARTS_MS)).toBe(0);
    const later = { issuedAt: grant.issuedAt + GRANT_STARTS_MS };
    expect(startingGrants([grant, later], grant.issuedAt + GRANT_STARTS_MS + 1)).toBe(1);
  });
});
