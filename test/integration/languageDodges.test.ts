/**
 * An allow of a program that runs a language of its own (awk, sqlite3, vim, ed) against a deny of a
 * folder, through a real gate: the official MCP client as the agent calls shell_exec, real programs
 * run in the sandbox. With `allow: awk *` and `allow: sqlite3 *`, a program that reads the denied
 * file by a name in its own text (awk's getline, sqlite3's readfile() and .shell) is not run unasked:
 * the person is asked (here nobody is there, so it is refused) and nothing of the file reaches the
 * agent; a file awk writes by its own name is not written. The plain awk the allow is for still runs
 * unasked. A file named by a convention other than a plain path (curl's `-d @file`, `-F f=<file`, a
 * file: URL) or read by the pager man is handed is refused by the deny itself, unasked.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PRIVATE_DENY, startUnattendedShell, textOf, writePrivateKey, type UnattendedShell } from './helpers';

const SECRET = 'the-private-key-text';

let unattended: UnattendedShell;
let workspace: string;
const shell = (command: string) => unattended.shell(command);
const prompts = () => unattended.prompts;

beforeAll(async () => {
  unattended = await startUnattendedShell(
    {
      allow: ['shell_exec(awk *)', 'shell_exec(sqlite3 *)', 'shell_exec(ed *)', 'shell_exec(curl *)', 'shell_exec(man *)', 'shell_exec(tar *)', 'shell_exec(cat *)'],
      deny: PRIVATE_DENY,
    },
    (gate) => {
      workspace = writePrivateKey(gate, SECRET);
      writeFileSync(join(workspace, 'table.txt'), 'a 150\nb 50\n');
      // An archive holding private/planted, made outside the workspace.
      const made = join(gate.dirs.outside, 'archive');
      mkdirSync(join(made, 'private'), { recursive: true });
      writeFileSync(join(made, 'private', 'planted'), 'planted\n');
      execFileSync('tar', ['-cf', join(workspace, 'planted.tar'), '-C', made, 'private/planted']);
    },
  );
});

afterAll(async () => {
  await unattended?.close();
});

describe('an allowed language runner does not carry a program past a path deny', () => {
  it.each([
    `awk 'BEGIN { while ((getline line < "private/key") > 0) print line }'`,
    `awk 'BEGIN { system("cat private/key") }'`,
    `awk 'BEGIN { "cat private/key" | getline x; print x }'`,
    `awk 'BEGIN { ARGV[1] = "private/key"; ARGC = 2 } { print }'`,
    `awk 'BEGIN { if (1) x = 1; else /"/; system("cat private/key"); y = "\\"" }'`,
    `sqlite3 :memory: "select readfile('private/key')"`,
    `sqlite3 :memory: '.shell cat private/key'`,
    `ed -s table.txt <<< 'r private/key
,p
Q'`,
  ])('%j asks a person first, and with nobody there nothing of the file comes back', async (command) => {
    const before = prompts().length;
    const result = await shell(command);
    expect(prompts().slice(before)).toEqual([command]);
    expect(result.isError).toBe(true);
    expect(textOf(result)).not.toContain(SECRET);
  });

  it.each([`awk 'BEGIN { print "planted" > "private/planted" }'`, 'tar -xf planted.tar'])('%j, which writes a file by a name the line does not show, asks, and the file is not written', async (command) => {
    const before = prompts().length;
    const result = await shell(command);
    expect(prompts().length).toBe(before + 1);
    expect(result.isError).toBe(true);
    expect(existsSync(join(workspace, 'private', 'planted'))).toBe(false);
  });

  it('the awk the allow is for runs unasked, comparisons and all', async () => {
    const before = prompts().length;
    const result = await shell(`awk '$2 > 100 { print $1 }' table.txt`);
    expect(prompts().length).toBe(before);
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toContain('a');
    expect(textOf(result)).not.toContain('b');
  });
});

describe('a deny of a folder holds a file a word names by convention, or a command an option hands on', () => {
  it.each([
    'curl -s -d @private/key http://127.0.0.1:9/',
    "curl -s -F 'f=<private/key;type=text/plain' http://127.0.0.1:9/",
    'curl -s file:private/key',
    "man -P 'cat private/key' ls",
    'curl -sTprivate/key file:///dev/stdout',
    'tar -cf - -C private key',
    '\\time -o private/planted cat table.txt',
  ])('%j is refused by the deny, unasked, and nothing of the file comes back', async (command) => {
    const before = prompts().length;
    const result = await shell(command);
    expect(prompts().length).toBe(before);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/private stays private/);
    expect(textOf(result)).not.toContain(SECRET);
  });
});
