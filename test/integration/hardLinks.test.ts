/**
 * A file under a denied folder that has another name (a hard link, made earlier by a person, or by
 * an archive's link entry when it was extracted), through a real gate: the official MCP client as
 * the agent calls shell_exec and read_file, real programs run in the sandbox. Read or written by
 * its other name it is held by the folder's deny, unasked, and nothing of it comes back or changes;
 * a file whose names all lie outside the folder is read as before.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WAIT_MS } from '../fixtures/processes';
import { connectMcp, PRIVATE_DENY, startUnattendedShell, textOf, writePrivateKey, type UnattendedShell } from './helpers';

const SECRET = 'the-private-key-text';

let unattended: UnattendedShell;
let reader: Client;
let workspace: string;
const shell = (command: string) => unattended.shell(command);
const readFile = (path: string) => reader.callTool({ name: 'read_file', arguments: { path } }, undefined, { timeout: WAIT_MS }) as Promise<CallToolResult>;

beforeAll(async () => {
  unattended = await startUnattendedShell(
    {
      allow: ['read_file', 'shell_exec(cat *)', 'shell_exec(ln *)', 'shell_exec(echo *)', 'shell_exec(wc *)', 'shell_exec(grep *)', 'shell_exec(diff *)', 'shell_exec(ctags *)'],
      deny: PRIVATE_DENY,
    },
    (gate) => {
      workspace = writePrivateKey(gate, SECRET);
      mkdirSync(join(workspace, 'notes'), { recursive: true });
      linkSync(join(workspace, 'private', 'key'), join(workspace, 'notes', 'key'));
      // Two names, both outside the denied folder.
      mkdirSync(join(workspace, 'docs'), { recursive: true });
      mkdirSync(join(workspace, 'a', 'b'), { recursive: true });
      writeFileSync(join(workspace, 'docs', 'plan'), 'the plan\n');
      linkSync(join(workspace, 'docs', 'plan'), join(workspace, 'plan-copy'));
    },
  );
  reader = await connectMcp(unattended.gate.running.mcpUrl, unattended.gate.token);
});

afterAll(async () => {
  await reader?.close();
  await unattended?.close();
});

describe('a deny of a folder holds every name of the files below it', () => {
  /** Runs `command`: refused by the deny, no person asked, nothing of the file in the answer. */
  const refusedUnasked = async (command: string) => {
    const before = unattended.prompts.length;
    const result = await shell(command);
    expect(unattended.prompts.length).toBe(before);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('private stays private');
    expect(textOf(result)).not.toContain(SECRET);
  };

  it.each(['cat notes/key', 'wc -c notes/key', 'grep -r private-key notes'])('%j, a read by another name, is refused by the deny, unasked, and nothing of the file comes back', refusedUnasked);

  it.each(['diff -rN . empty', 'diff --from-file=private notes/plan', 'ctags -R --langdef=Any -f -'])('%j, which reads the denied folder by no name of a file in it, is refused by the deny, unasked', refusedUnasked);

  it('read_file of the other name is refused by the deny', async () => {
    const result = await readFile('notes/key');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('private stays private');
    expect(textOf(result)).not.toContain(SECRET);
  });

  it('a write by the other name is refused, and the file under the denied folder is unchanged', async () => {
    const result = await shell('echo planted >> notes/key');
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain('private stays private');
    expect(readFileSync(join(workspace, 'private', 'key'), 'utf8')).toBe(`${SECRET}\n`);
  });

  it('a symbolic link into the folder, its target written from another folder than the link is made in, is refused unasked and not made', async () => {
    // From a/b, ../private reads as a/private; from docs/, where the link is made, it leads into private/.
    await refusedUnasked('cd a/b && ln -s ../private ../../docs/leak');
    expect(existsSync(join(workspace, 'docs', 'leak'))).toBe(false);
  });

  it('a file whose names all lie outside the folder is read as before, by either name', async () => {
    const result = await shell('cat plan-copy');
    expect(result.isError).not.toBe(true);
    expect(textOf(result)).toContain('the plan');
    expect(textOf(await readFile('docs/plan'))).toContain('the plan');
    const searched = await shell('grep -r plan docs');
    expect(searched.isError).not.toBe(true);
    expect(textOf(searched)).toContain('the plan');
  });
});

describe('an archive whose member is another name of a file under a read-denied folder', () => {
  let readDenied: UnattendedShell;
  let readWorkspace: string;

  beforeAll(async () => {
    readDenied = await startUnattendedShell({ allow: ['shell_exec(tar *)', 'shell_exec(cat *)'], deny: [PRIVATE_DENY[0]!] }, (gate) => {
      readWorkspace = writePrivateKey(gate, SECRET);
      mkdirSync(join(readWorkspace, 'docs'));
      writeFileSync(join(readWorkspace, 'docs', 'plan'), 'the plan\n');
      // Made outside the workspace: docs/plan is stored as a hard link to private/key.
      const staging = join(gate.dirs.outside, 'staging');
      mkdirSync(join(staging, 'private'), { recursive: true });
      mkdirSync(join(staging, 'docs'));
      writeFileSync(join(staging, 'private', 'key'), 'decoy\n');
      linkSync(join(staging, 'private', 'key'), join(staging, 'docs', 'plan'));
      execFileSync('tar', ['-cf', join(readWorkspace, 'links.tar'), '-C', staging, 'private/key', 'docs/plan']);
    });
  });

  afterAll(async () => {
    await readDenied?.close();
  });

  it('read on the same line, over a file that was there, asks first; read by a later call, is refused by the deny', async () => {
    const sameLine = await readDenied.shell('tar -xf links.tar docs/plan && cat docs/plan');
    expect(readDenied.prompts).toHaveLength(1);
    expect(sameLine.isError).toBe(true);
    expect(textOf(sameLine)).not.toContain(SECRET);
    // Extracted alone it runs unasked (no rule guards writes there): docs/plan is now another name of private/key.
    const extracted = await readDenied.shell('tar -xf links.tar docs/plan');
    expect(extracted.isError, textOf(extracted)).not.toBe(true);
    expect(readFileSync(join(readWorkspace, 'docs', 'plan'), 'utf8')).toBe(`${SECRET}\n`);
    const later = await readDenied.shell('cat docs/plan');
    expect(readDenied.prompts).toHaveLength(1);
    expect(later.isError).toBe(true);
    expect(textOf(later)).toContain('private stays private');
    expect(textOf(later)).not.toContain(SECRET);
  });
});
