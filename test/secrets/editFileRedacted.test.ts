import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { editFileTool } from '../../main/tools/editFile';
import { removeTempFolder } from '../fixtures/tempFolder';
import { makeWorkspaceBeside } from '../fixtures/toolWorkspace';

const SECRET = 'sk-live-4RtY8uPq';
const hiddenSecrets = [{ name: 'STRIPE_KEY', value: SECRET }];
const FILE = `# keys\nSTRIPE_KEY=${SECRET}\nMODE=live\n`;

let root: string;
let workspace: string;

beforeEach(() => {
  ({ root, workspace } = makeWorkspaceBeside());
  writeFileSync(join(workspace, '.env'), FILE);
});
afterEach(() => removeTempFolder(root));

/** What an edit's dry run answers (the preview that leads to a prompt, or the refusal made unasked). */
async function dryRun(old: string, replacement = 'STRIPE_KEY=changed'): Promise<string> {
  try {
    await editFileTool.execute(editFileTool.input.parse({ path: '.env', strategy: 'snippet', old, new: replacement }), { workspace, dryRun: true, callId: 'c', hiddenSecrets });
    return 'would ask a person';
  } catch (error) {
    return `refused: ${(error as Error).message}`;
  }
}

describe('edit_file snippets against a secret held in the file', () => {
  it('a snippet that cuts into the secret matches nothing: a right prefix is refused exactly like a wrong one', async () => {
    for (let length = 1; length < SECRET.length; length++) {
      const right = SECRET.slice(0, length);
      const wrong = `${SECRET.slice(0, length - 1)}#`;
      expect(await dryRun(`STRIPE_KEY=${right}`)).toBe(await dryRun(`STRIPE_KEY=${wrong}`));
      // Nor does a hint (the spaces-ignored one) tell them apart.
      expect(await dryRun(`STRIPE_KEY= ${right}`)).toBe(await dryRun(`STRIPE_KEY= ${wrong}`));
      expect(await dryRun(`${SECRET.slice(length)}\nMODE`)).toBe(await dryRun(`#${SECRET.slice(length + 1)}\nMODE`));
    }
  });

  it('a snippet around the whole secret, or beside it, still edits', async () => {
    expect(await dryRun(`STRIPE_KEY=${SECRET}\n`)).toBe('would ask a person');
    await editFileTool.execute(editFileTool.input.parse({ path: '.env', strategy: 'snippet', old: 'MODE=live', new: 'MODE=test' }), { workspace, dryRun: false, callId: 'c', hiddenSecrets });
    expect(readFileSync(join(workspace, '.env'), 'utf8')).toBe(FILE.replace('MODE=live', 'MODE=test'));
  });
});
