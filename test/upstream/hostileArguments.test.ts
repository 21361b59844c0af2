import { describe, expect, it } from 'vitest';
import type { ToolManifest } from '../../shared/manifest';
import { unlistedUpstream } from '../../main/policy/compiledRule';
import { useUserPolicy } from '../policy/policyFixture';

/** The filesystem server's tools as the gate registers them, trusted as writing files. */
const writeFile: ToolManifest = { ...unlistedUpstream('fs__write_file'), tier: 'ELEVATED' as const, sideEffects: ['FsWrite' as const] };
const readMany: ToolManifest = { ...unlistedUpstream('fs__read_multiple_files'), tier: 'ELEVATED' as const, sideEffects: ['FsRead' as const] };

describe('an agent shaping arguments to slip past a deny on an upstream tool', () => {
  const policy = useUserPolicy();

  async function decide(manifest: ToolManifest, input: Record<string, unknown>) {
    const engine = policy.engine();
    return engine.decide(manifest, input, await engine.prepare(manifest, input));
  }

  it('a path with . or .. segments is denied as the path the server opens', async () => {
    await policy.withUserPolicy({ allow: ['fs__write_file'], deny: ['fs__write_file(path=**/secrets/**)'] });
    expect(await decide(writeFile, { path: '/home/me/p/secrets/key', content: 'x' })).toMatchObject({ decision: 'deny' });
    expect(await decide(writeFile, { path: '/home/me/p/./secrets/key', content: 'x' })).toMatchObject({ decision: 'deny' });
    expect(await decide(writeFile, { path: '/home/me/p/x/../secrets/key', content: 'x' })).toMatchObject({ decision: 'deny' });
    expect(await decide(writeFile, { path: './secrets/key', content: 'x' })).toMatchObject({ decision: 'deny' });
    expect(await decide(writeFile, { path: '/home/me/p/notes.txt', content: 'x' })).toMatchObject({ decision: 'allow' });
  });

  it('a list of paths is denied when any one of them is, and never meets an allow', async () => {
    await policy.withUserPolicy({ allow: ['fs__read_multiple_files'], deny: ['fs__read_multiple_files(paths=**/secrets/**)'] });
    expect(await decide(readMany, { paths: ['/home/me/p/a.txt', '/home/me/p/secrets/key'] })).toMatchObject({ decision: 'deny' });
    expect(await decide(readMany, { paths: ['/home/me/p/a.txt'] })).toMatchObject({ decision: 'allow' });
    await policy.withUserPolicy({ allow: ['fs__read_multiple_files(paths=/home/me/p/**)'] });
    expect(await decide(readMany, { paths: ['/home/me/p/a.txt'] })).toMatchObject({ decision: 'ask' });
  });

  it('an ask on one value of a list asks for the whole call', async () => {
    await policy.withUserPolicy({ allow: ['fs__read_multiple_files'], ask: ['fs__read_multiple_files(paths=**/.env)'] });
    expect(await decide(readMany, { paths: ['/home/me/p/a.txt', '/home/me/p/.env'] })).toMatchObject({ decision: 'ask' });
  });

  it('an allow is not met through . or .. segments', async () => {
    await policy.withUserPolicy({ allow: ['fs__write_file(path=/home/me/p/**)'] });
    expect(await decide(writeFile, { path: '/home/me/p/../../../etc/passwd', content: 'x' })).toMatchObject({ decision: 'ask' });
    expect(await decide(writeFile, { path: '/home/me/p/src/a.ts', content: 'x' })).toMatchObject({ decision: 'allow' });
  });
});
