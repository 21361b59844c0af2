import { describe, expect, it } from 'vitest';
import type { GateError } from '../../shared/errors';
import { gateErrorOf } from '../fixtures/gateErrors';
import { parseCommand, type SubCommand } from '../../main/tools/shell/parseCommand';

/** argv and connector of each sub-command, the shape most tests judge. */
async function outline(command: string): Promise<Array<Pick<SubCommand, 'argv' | 'connector' | 'nested'>>> {
  return (await parseCommand(command)).map(({ argv, connector, nested }) => ({ argv, nested, ...(connector ? { connector } : {}) }));
}

/** The GateError parsing `command` fails with. */
function refusal(command: string): Promise<GateError> {
  return gateErrorOf(() => parseCommand(command));
}

describe('parseCommand', () => {
  it('joins commands with && and ;', async () => {
    expect(await outline('make && make test; echo done')).toEqual([
      { argv: ['make'], nested: false, connector: '&&' },
      { argv: ['make', 'test'], nested: false, connector: ';' },
      { argv: ['echo', 'done'], nested: false },
    ]);
  });

  it('reads a pipeline, || and a background &', async () => {
    expect(await outline('grep -r x . | sort | uniq -c || true; sleep 5 &')).toEqual([
      { argv: ['grep', '-r', 'x', '.'], nested: false, connector: '|' },
      { argv: ['sort'], nested: false, connector: '|' },
      { argv: ['uniq', '-c'], nested: false, connector: '||' },
      { argv: ['true'], nested: false, connector: ';' },
      { argv: ['sleep', '5'], nested: false, connector: '&' },
    ]);
  });

  it('reads a newline as ;', async () => {
    expect(await outline('cd src\nls -la\n')).toEqual([
      { argv: ['cd', 'src'], nested: false, connector: ';' },
      { argv: ['ls', '-la'], nested: false },
    ]);
  });

  it('lists the commands of $(…) as nested, before the command that holds them', async () => {
    const commands = await parseCommand('echo $(rm -rf build) done');
    expect(commands.map((command) => [command.argv, command.nested])).toEqual([
      [['rm', '-rf', 'build'], true],
      [['echo', '$(rm -rf build)', 'done'], false],
    ]);
    expect(commands[1]!.substitutions).toEqual(['$(rm -rf build)']);
  });

  it('lists backticks and substitutions inside substitutions, each judged separately', async () => {
    const commands = await parseCommand('ls $(dirname `which node`)');
    expect(commands.map((command) => command.argv)).toEqual([['which', 'node'], ['dirname', '`which node`'], ['ls', '$(dirname `which node`)']]);
    expect(commands.map((command) => command.nested)).toEqual([true, true, false]);
    expect(commands[1]!.substitutions).toEqual(['`which node`']);
  });

  it('finds substitutions inside parameter expansions, assignments and process substitutions', async () => {
    const commands = await parseCommand('X=$(id -u) diff <(sort a) ${B:-$(pwd)}');
    expect(commands.filter((command) => command.nested).map((command) => command.argv)).toEqual([['id', '-u'], ['sort', 'a'], ['pwd']]);
    const main = commands.find((command) => !command.nested)!;
    expect(main.argv).toEqual(['X=$(id -u)', 'diff', '<(sort a)', '${B:-$(pwd)}']);
    expect(main.substitutions).toEqual(['$(id -u)', '<(sort a)', '$(pwd)']);
  });

  it('reads redirections with their descriptors', async () => {
    const [command] = await parseCommand('node build.js > out.log 2>&1 < input.txt >> all.log');
    expect(command!.argv).toEqual(['node', 'build.js']);
    expect(command!.redirects).toEqual([
      { op: '>', target: 'out.log' },
      { op: '2>&', target: '1' },
      { op: '<', target: 'input.txt' },
      { op: '>>', target: 'all.log' },
    ]);
  });

  it('reads a heredoc: its body is data, its substitutions run, the rest of the line goes on', async () => {
    const commands = await parseCommand('cat <<EOF | wc -l\nhello $(whoami)\nEOF\necho after');
    expect(commands.map((command) => [command.argv, command.nested, command.connector])).toEqual([
      [['whoami'], true, undefined],
      [['cat'], false, '|'],
      [['wc', '-l'], false, ';'],
      [['echo', 'after'], false, undefined],
    ]);
    expect(commands[1]!.redirects).toEqual([{ op: '<<', target: 'EOF' }]);
    expect((await parseCommand('cat <<-EOF > notes.txt\n\thi\n\tEOF'))[0]!.redirects).toEqual([
      { op: '<<-', target: 'EOF' },
      { op: '>', target: 'notes.txt' },
    ]);
    // A quoted delimiter keeps the body literal: nothing in it runs.
    expect(await outline("cat <<'EOF'\n$(rm -rf /)\nEOF")).toEqual([{ argv: ['cat'], nested: false }]);
  });

  it('marks the commands of a subshell and of a function body as nested', async () => {
    expect(await outline('(cd build && rm -r *) ; f() { curl x; }; f')).toEqual([
      { argv: ['cd', 'build'], nested: true, connector: '&&' },
      { argv: ['rm', '-r', '*'], nested: true, connector: ';' },
      { argv: ['curl', 'x'], nested: true, connector: ';' },
      { argv: ['f'], nested: false },
    ]);
  });

  it('puts the redirections of a compound command on every command inside it', async () => {
    const commands = await parseCommand('{ date; uname -a; } > info.txt');
    expect(commands.map((command) => command.redirects)).toEqual([[{ op: '>', target: 'info.txt' }], [{ op: '>', target: 'info.txt' }]]);
  });

  it('puts a redirection after a pipeline or a list on its last command only, as bash does', async () => {
    const piped = await parseCommand('ls | sort > out.txt');
    expect(piped.map((command) => [command.argv, command.redirects])).toEqual([
      [['ls'], []],
      [['sort'], [{ op: '>', target: 'out.txt' }]],
    ]);
    const mixed = await parseCommand('a && b | c 2>&1 | d > e; f');
    expect(mixed.map((command) => [command.argv[0], command.connector, command.redirects.map((redirect) => redirect.op + redirect.target)])).toEqual([
      ['a', '&&', []],
      ['b', '|', []],
      ['c', '|', ['2>&1']],
      ['d', ';', ['>e']],
      ['f', undefined, []],
    ]);
    // A group's redirection still reaches every command in it.
    expect((await parseCommand('ls | { sort; uniq; } > o')).map((command) => command.redirects.length)).toEqual([0, 1, 1]);
  });

  it('gives the words after a redirection to the command, as bash does (the grammar hangs them on the redirection)', async () => {
    const [command] = await parseCommand('rm > log.txt -rf build');
    expect(command!.argv).toEqual(['rm', '-rf', 'build']);
    expect(command!.redirects).toEqual([{ op: '>', target: 'log.txt' }]);
    expect((await parseCommand("bash <<EOF -c 'rm -rf ~'\nEOF"))[0]!.argv).toEqual(['bash', '-c', "'rm -rf ~'"]);
    expect((await parseCommand('> out.txt rm -rf x'))[0]!.argv).toEqual(['rm', '-rf', 'x']);
    expect((await parseCommand('cat <<< x y'))[0]!.argv).toEqual(['cat', 'y']);
    // The grammar reads the 0 of `0<` as an argument.
    expect((await parseCommand('cat 0< f 3> g'))[0]).toMatchObject({ argv: ['cat'], redirects: [{ op: '0<', target: 'f' }, { op: '3>', target: 'g' }] });
    expect((await refusal('{ a; } > f x')).message).toMatch(/^the command is unreadable: words after the redirection of a group/);
  });

  it('reads the commands of if, for and while, and test commands word by word', async () => {
    expect((await parseCommand('if [ -f a ]; then rm a; fi; for f in *.ts; do wc -l "$f"; done')).map((command) => command.argv)).toEqual([
      ['[', '-f', 'a', ']'],
      ['rm', 'a'],
      ['wc', '-l', '"$f"'],
    ]);
  });

  it("keeps quoted words whole, as written: 'a b' is one word", async () => {
    const [command] = await parseCommand(`printf '%s\\n' 'a b' "c $HOME" d\\ e`);
    expect(command!.argv).toEqual(['printf', "'%s\\n'", "'a b'", '"c $HOME"', 'd\\ e']);
  });

  it('keeps a command text for each sub-command', async () => {
    expect((await parseCommand('ls -l && echo "x y"')).map((command) => command.text)).toEqual(['ls -l', 'echo "x y"']);
  });

  it('refuses a line it cannot read: nothing runs', async () => {
    for (const line of ['echo "unterminated', 'ls &&', 'echo $(', 'if then', 'echo )']) {
      const error = await refusal(line);
      expect(error.code, line).toBe('EVALIDATION');
      expect(error.message, line).toMatch(/^the shell could not parse the command.*; nothing was run$/);
    }
  });

  it('refuses a NUL byte and an over-long line', async () => {
    expect((await refusal('echo a\0b')).code).toBe('EVALIDATION');
    expect((await refusal(`echo ${'a'.repeat(70_000)}`)).message).toContain('longer than');
  });

  it('reads an empty line (or only a comment) as no commands', async () => {
    expect(await parseCommand('# nothing here')).toEqual([]);
  });
});
