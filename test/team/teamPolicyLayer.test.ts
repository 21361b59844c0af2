/**
 * The team layer in the policy engine, in process: its rules decide with the team as their source,
 * between the managed file and the user's; unread, it is refused whole, so what could have been
 * allowed asks.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { decideCall, policyEngine, policyFolders, writePolicy, type PolicyFolders } from '../policy/policyFixture';

let folders: PolicyFolders | undefined;
afterEach(() => folders?.remove());

describe('the team policy layer', () => {
  it('is refused while unread: a call the user allows asks instead', async () => {
    folders = policyFolders();
    writePolicy(folders.user, { allow: ['write_file(notes/**)'] });
    const engine = await policyEngine(folders);
    expect((await decideCall(engine, 'write_file', { path: 'notes/a.md', content: 'x' })).decision).toBe('allow');
    await engine.setTeamLayer({ unreadable: 'not read yet', source: 'nats:toolgate_acme_policy/policy' });
    const unread = await decideCall(engine, 'write_file', { path: 'notes/a.md', content: 'x' });
    expect(unread.decision).toBe('ask');
    expect(unread.reason).toContain('nats:toolgate_acme_policy/policy');
    engine.close();
  });

  it('decides with its rules once read: its deny beats the user\'s allow, and names the team as the source', async () => {
    folders = policyFolders();
    writePolicy(folders.user, { allow: ['write_file(notes/**)'] });
    const engine = await policyEngine(folders);
    await engine.setTeamLayer({ text: JSON.stringify({ deny: [{ rule: 'write_file(notes/**)', reason: 'frozen by the team' }] }), source: 'nats:toolgate_acme_policy/policy' });
    const decided = await decideCall(engine, 'write_file', { path: 'notes/a.md', content: 'x' });
    expect(decided.decision).toBe('deny');
    expect(decided.provenance).toMatchObject({ source: { layer: 'team', file: 'nats:toolgate_acme_policy/policy' } });
    engine.close();
  });
});
