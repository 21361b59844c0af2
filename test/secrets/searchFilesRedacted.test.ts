import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { searchFilesTool } from '../../main/tools/searchFiles';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside } from '../fixtures/toolWorkspace';

const SECRET = 'sk-live-9QxZ2mT7';
const hiddenSecrets = [{ name: 'STRIPE_KEY', value: SECRET }];

let root: string;
let workspace: string;

beforeEach(() => {
  ({ root, workspace } = makeWorkspaceBeside());
  mkdirSync(join(workspace, 'config'));
  writeFileSync(join(workspace, 'config/.env'), `# keys\nSTRIPE_KEY=${SECRET}\nMODE=live\n`);
  writeFileSync(join(workspace, 'config/encoded.txt'), `b64 ${Buffer.from(SECRET).toString('base64')}\nUP ${SECRET.toUpperCase()}\n`);
});
afterEach(() => removeTempFolder(root));

/** What a search answers, as far as an agent could tell one answer from another. */
async function answer(query: string, options: Record<string, unknown> = {}): Promise<string> {
  try {
    const result = await searchFilesTool.execute(searchFilesTool.input.parse({ query, regex: true, ...options }), { workspace, dryRun: false, callId: 'c', hiddenSecrets });
    return JSON.stringify(result);
  } catch (error) {
    return `error: ${(error as Error).message}`;
  }
}

describe('search_files against a secret held in a workspace file', () => {
  it('matches the redacted text and shows it redacted', async () => {
    const found = JSON.parse(await answer('STRIPE_KEY=')) as { matches: Array<{ text: string }> };
    expect(found.matches.map((match) => match.text)).toEqual(['STRIPE_KEY=$ENV.STRIPE_KEY']);
    expect(await answer('UP \\$ENV\\.STRIPE_KEY')).toContain('encoded.txt');
  });

  it('a right prefix of the secret gets the same answer as a wrong one, in every form and case', async () => {
    for (let length = 1; length <= SECRET.length; length++) {
      const right = SECRET.slice(0, length);
      const wrong = `${SECRET.slice(0, length - 1)}#`;
      for (const options of [{}, { ignoreCase: true }]) {
        for (const [guess, miss] of [
          [`KEY=${right}`, `KEY=${wrong}`],
          [`b64 ${Buffer.from(right).toString('base64').slice(0, Math.floor((length * 4) / 3))}`, `b64 ${Buffer.from(wrong).toString('base64').slice(0, Math.floor((length * 4) / 3))}`],
          [`UP ${right.toUpperCase()}`, `UP ${wrong.toUpperCase()}`],
        ]) {
          const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
          expect(await answer(escape(guess!), options), `${guess} vs ${miss}`).toBe(await answer(escape(miss!), options));
        }
      }
    }
  });

  it('without the secrets given (a module tool, or none stored) the file is searched as it is', async () => {
    const result = await searchFilesTool.execute(searchFilesTool.input.parse({ query: 'sk-live' }), { workspace, dryRun: false, callId: 'c' });
    expect((result as { matches: unknown[] }).matches).toHaveLength(1);
  });
});
