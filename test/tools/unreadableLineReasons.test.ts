import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../main/tools/shell/parseCommand';

/**
 * Lines the prompt refuses because bash could read them otherwise than the preview: the refusal
 * names the line the problem is on and how to fix it, and the spellings bash and the preview agree
 * on are still read.
 */

async function refusalOf(line: string): Promise<string> {
  const error = await parseCommand(line).then(
    () => undefined,
    (caught: unknown) => caught as Error,
  );
  if (!error) throw new Error(`${JSON.stringify(line)} was read`);
  return error.message;
}

async function argvOf(line: string): Promise<string[][]> {
  return (await parseCommand(line)).map((command) => command.argv);
}

describe('a refusal', () => {
  it('names the line the problem is on', async () => {
    expect(await refusalOf('echo a\n! { rm x; }')).toContain('as a program name (line 2)');
    expect(await refusalOf('echo a\nr\\\nm x')).toContain('a backslash at the end of line 2 joins two lines');
    expect(await refusalOf('echo a\necho b\rc')).toContain('line 2 holds a carriage return');
    expect(await refusalOf('echo a\n\necho b\fc')).toContain('line 3 holds a form feed');
    expect(await refusalOf('echo a \\\n  b\necho c\rd')).toContain('line 3 holds a carriage return');
  });

  it('says how to fix it', async () => {
    expect(await refusalOf('r\\\nm -rf x')).toContain('put that word on one line (a backslash-newline between words is fine)');
    expect(await refusalOf('cat <<E\\OF\nx\nEOF')).toContain("use a plain word (EOF) or quote all of it ('EOF')");
    expect(await refusalOf('cat <<EOF |\nrm -rf build\nEOF\nwc -l')).toContain('end the start line there and begin the body on the next line');
  });
});

describe('spellings bash and the preview read alike', () => {
  it('a backslash-newline after a tab between words', async () => {
    expect(await argvOf('ls\t\\\n-la')).toEqual([['ls', '-la']]);
  });

  it('a backslash-newline in the body of a here-document with a double-quoted delimiter, but not an unquoted one', async () => {
    expect(await argvOf('cat <<"EOF"\na \\\nb\nEOF')).toEqual([['cat']]);
    expect(await refusalOf('cat <<EOF\na \\\nb\nEOF')).toContain('a backslash at the end of line 2');
  });

  it('a carriage return inside double quotes, next to an expansion', async () => {
    expect(await argvOf('echo "a$x\rb"')).toEqual([['echo', '"a$x\rb"']]);
  });

  it('<<- bodies and end lines indented with several tabs; a tab before the end of a plain << is no end', async () => {
    expect(await argvOf('cat <<-EOF\n\t\tx\n\t\tEOF')).toEqual([['cat']]);
    expect(await argvOf('cat <<-EOF\nx\n\t\tEOF')).toEqual([['cat']]);
    expect(await refusalOf('cat <<EOF\nx\n\tEOF\nEOF')).toContain('has no line that is exactly "EOF"');
  });
});
