import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { gateErrorOf } from '../fixtures/gateErrors';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';
import { parseCommand } from '../../main/tools/shell/parseCommand';

/**
 * Where a here-document ends, for bash and for the preview a person approves: a line whose end
 * bash finds elsewhere than the preview is refused, naming why; the spellings both read alike are
 * read. Hostile forms are first run in real bash, to show what it does with them.
 */

const scratch = makeTempFolder();
afterAll(() => removeTempFolder(scratch));

/** Runs `line` in bash in the scratch folder; its output (a failure after the line ran is fine). */
function bashOutput(line: string): string {
  try {
    return execFileSync('bash', ['-c', line], { cwd: scratch, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch (error) {
    return String((error as { stdout?: string }).stdout ?? '');
  }
}

async function refusalOf(line: string): Promise<string> {
  return (await gateErrorOf(() => parseCommand(line))).message;
}

async function argvOf(line: string): Promise<string[][]> {
  return (await parseCommand(line)).map((command) => command.argv);
}

describe('a here-document that holds its own end line earlier than the preview reads it', () => {
  it('inside a $(…) of its body: bash ends it there and runs the next line, which the preview reads as data; refused', async () => {
    const line = 'cat <<EOF\n$(cat <<X\nEOF\ntouch ran\nX\n)\nEOF';
    bashOutput(line);
    expect(existsSync(join(scratch, 'ran'))).toBe(true);
    expect(await refusalOf(line)).toBe(
      'the command is unreadable: the here-document "EOF" holds its own end line earlier than the preview read it; end it with one line that is exactly "EOF"; nothing was run',
    );
  });

  it('on any line of the body', async () => {
    for (const line of ['cat <<EOF\n$(\nEOF\n)\nEOF', 'cat <<EOF\nx\n${y:-\nEOF\n}\nEOF', 'cat <<EOF\n$((1 +\n\n\nEOF\n))\nEOF']) {
      expect(await refusalOf(line), JSON.stringify(line)).toContain('holds its own end line earlier than the preview read it');
    }
  });
});

describe('an end line bash does not take for one', () => {
  it('<<- with a tab after the delimiter: bash reads on to the bare delimiter; refused', async () => {
    const line = 'cat <<-EOF\nx\nEOF\t\necho body\nEOF';
    expect(bashOutput(line)).toBe('x\nEOF\t\necho body\n');
    expect(await refusalOf(line)).toContain('the here-document "EOF" has no line that is exactly "EOF" where bash would end it');
  });
});

describe('here-documents read alike', () => {
  it('a one-letter delimiter, its letter in the body, and a command after its end line', async () => {
    const line = 'cat <<E\nxEx\nE\necho done';
    expect(bashOutput(line)).toBe('xEx\ndone\n');
    expect(await argvOf(line)).toEqual([['cat'], ['echo', 'done']]);
  });

  it('a here-document given to a numbered descriptor, with a plain or a quoted delimiter', async () => {
    expect((await argvOf('cat 3<<EOF\nhi\nEOF'))[0]![0]).toBe('cat');
    // A quoted delimiter keeps a backslash-newline of the body as written, for bash and the preview alike.
    expect(bashOutput("cat 3<<'EOF' <&3\na \\\nb\nEOF")).toBe('a \\\nb\n');
    expect((await argvOf("cat 3<<'EOF' <&3\na \\\nb\nEOF"))[0]![0]).toBe('cat');
  });
});

describe('carriage returns', () => {
  it('in a redirection on the start line of a quoted here-document: bash writes to another file than the preview shows; refused', async () => {
    const line = "cat <<'EOF' >\rout\nx\nEOF";
    bashOutput(line);
    expect(existsSync(join(scratch, '\rout'))).toBe(true);
    expect(existsSync(join(scratch, 'out'))).toBe(false);
    expect(await refusalOf(line)).toContain('line 1 holds a carriage return outside quotes');
  });

  it('the line a refusal names counts a newline that starts the command', async () => {
    expect(await refusalOf('\necho a\rb')).toContain('line 2 holds a carriage return');
  });

  it('inside a ${…} in double quotes it is read, as bash keeps it', async () => {
    expect(await argvOf('echo "${x\r}"')).toEqual([['echo', '"${x\r}"']]);
  });
});
