import { describe, expect, it } from 'vitest';
import { parseCommand, type SubCommand } from '../../main/tools/shell/parseCommand';
import { gateErrorOf } from '../fixtures/gateErrors';

/**
 * What a shell line is read as: the commands, words, redirections and joining operators a user's
 * rule is judged against and the prompt shows, in the spellings where the grammar's tree and bash
 * part ways (operators after a here-document, redirections on a function or a group, descriptors
 * written before an operator, words after a redirection).
 */

/** Each sub-command as the policy sees it: words, redirections, what joins it to the next, and where it runs. */
async function reading(line: string): Promise<Array<Pick<SubCommand, 'argv' | 'nested'> & { redirects?: string[]; connector?: string }>> {
  return (await parseCommand(line)).map(({ argv, nested, redirects, connector }) => ({
    argv,
    nested,
    ...(redirects.length > 0 ? { redirects: redirects.map((redirect) => `${redirect.op}${redirect.target}`) } : {}),
    ...(connector === undefined ? {} : { connector }),
  }));
}

describe('the operators joining commands', () => {
  it('a ; that ends the line or a group joins nothing', async () => {
    expect(await reading('echo a;')).toEqual([{ argv: ['echo', 'a'], nested: false }]);
    expect(await reading('{ a; }')).toEqual([{ argv: ['a'], nested: false }]);
  });

  it('keywords between commands are no operators: only ; and newlines join them', async () => {
    expect(await reading('if a; then b; fi')).toEqual([
      { argv: ['a'], nested: false, connector: ';' },
      { argv: ['b'], nested: false },
    ]);
    expect(await reading('while a; do b; done')).toEqual([
      { argv: ['a'], nested: false, connector: ';' },
      { argv: ['b'], nested: false },
    ]);
  });

  it('a & inside a subshell after a ; still puts its command in the background', async () => {
    expect(await reading('x; (a &)')).toEqual([
      { argv: ['x'], nested: false, connector: ';' },
      { argv: ['a'], nested: true, connector: '&' },
    ]);
  });

  it('an && or || after a here-document joins the command that reads it to the rest of the line', async () => {
    expect(await reading('cat <<EOF || rm x\nbody\nEOF')).toEqual([
      { argv: ['cat'], nested: false, redirects: ['<<EOF'], connector: '||' },
      { argv: ['rm', 'x'], nested: false },
    ]);
    expect(await reading('cat <<EOF > f && rm x\nbody\nEOF')).toEqual([
      { argv: ['cat'], nested: false, redirects: ['<<EOF', '>f'], connector: '&&' },
      { argv: ['rm', 'x'], nested: false },
    ]);
  });

  it('a & that ends a group in a redirected pipeline still puts its command in the background', async () => {
    expect(await reading('a | { b & } > f')).toEqual([
      { argv: ['a'], nested: false, connector: '|' },
      { argv: ['b'], nested: false, redirects: ['>f'], connector: '&' },
    ]);
  });

  it('a comment after a command is neither a word nor a command', async () => {
    expect(await reading('a && b # rm -rf x')).toEqual([
      { argv: ['a'], nested: false, connector: '&&' },
      { argv: ['b'], nested: false },
    ]);
    expect(await reading('export A=1 # c')).toEqual([{ argv: ['export', 'A=1'], nested: false }]);
  });
});

describe('commands that are not a program and its words', () => {
  it('arithmetic (( … )) is one command split at its operators, and keeps its redirections', async () => {
    expect(await reading('(( 1 + 2 )) && a')).toEqual([
      { argv: ['((', '1', '+', '2', '))'], nested: false, connector: '&&' },
      { argv: ['a'], nested: false },
    ]);
    expect(await reading('(( 1 )) > f')).toEqual([{ argv: ['((', '1', '))'], nested: false, redirects: ['>f'] }]);
    // Bash reads words after its redirection as a syntax error, as after a group's.
    expect((await gateErrorOf(() => parseCommand('(( 1 )) > f x'))).message).toMatch(/^the command is unreadable: words after the redirection of a group \(x\)/);
  });

  it('the substitutions in a for loop’s words and a case’s subject run, as commands of their own', async () => {
    expect(await reading('for f in $(ls); do rm "$f"; done')).toEqual([
      { argv: ['ls'], nested: true },
      { argv: ['rm', '"$f"'], nested: false },
    ]);
    expect(await reading('case $(id) in a) b;; esac')).toEqual([
      { argv: ['id'], nested: true },
      { argv: ['b'], nested: false },
    ]);
  });

  it('a test runs no code of its own', async () => {
    expect((await parseCommand('[ -f a ] && [[ -d b ]] && (( 1 ))')).map((command) => command.runsCode)).toEqual([[], [], []]);
  });

  it('a [[ … ]] test lists every operand and operator, inside ! and ( … ) too', async () => {
    expect(await reading('[[ -f a && ! ( -d b ) ]]')).toEqual([{ argv: ['[[', '-f', 'a', '&&', '!', '(', '-d', 'b', ')', ']]'], nested: false }]);
  });

  it('assignments alone are one command of their words, their substitutions run first', async () => {
    expect(await reading('a=1')).toEqual([{ argv: ['a=1'], nested: false }]);
    expect(await reading('x=1 y=$(id)')).toEqual([
      { argv: ['id'], nested: true },
      { argv: ['x=1', 'y=$(id)'], nested: false },
    ]);
  });

  it('a line of bare redirections is one command without words, its text the redirections', async () => {
    const commands = await parseCommand('2> err.txt > out.txt');
    expect(commands.map(({ text, argv, redirects }) => ({ text, argv, redirects }))).toEqual([
      { text: '2> err.txt > out.txt', argv: [], redirects: [{ op: '2>', target: 'err.txt' }, { op: '>', target: 'out.txt' }] },
    ]);
  });
});

describe('redirections', () => {
  it('a number apart from the operator, or before &>, is a word of the command', async () => {
    expect(await reading('cat 0 < f')).toEqual([{ argv: ['cat', '0'], nested: false, redirects: ['<f'] }]);
    expect(await reading('cat 0&> f')).toEqual([{ argv: ['cat', '0'], nested: false, redirects: ['&>f'] }]);
  });

  it('the text of a command shows the words after its redirection, and only its own words otherwise', async () => {
    expect((await parseCommand('rm > log.txt -rf build'))[0]!.text).toBe('rm > log.txt -rf build');
    expect((await parseCommand('ls > out.txt'))[0]!.text).toBe('ls');
  });

  it('a substitution in the target of a group’s redirection runs first; a substitution’s command does not get it', async () => {
    expect(await reading('{ a; } > $(mktemp)')).toEqual([
      { argv: ['mktemp'], nested: true },
      { argv: ['a'], nested: false, redirects: ['>$(mktemp)'] },
    ]);
    expect(await reading('{ a; echo $(id); } > f')).toEqual([
      { argv: ['a'], nested: false, redirects: ['>f'], connector: ';' },
      { argv: ['id'], nested: true },
      { argv: ['echo', '$(id)'], nested: false, redirects: ['>f'] },
    ]);
  });

  it('words after a redirection at the end of a list are the last command’s', async () => {
    expect(await reading('a && echo >&2 hi')).toEqual([
      { argv: ['a'], nested: false, connector: '&&' },
      { argv: ['echo', 'hi'], nested: false, redirects: ['>&2'] },
    ]);
  });

  it('a function definition’s redirections are on every command of its body, as bash applies them to each call', async () => {
    expect(await reading('f() { a; b; } > out; f')).toEqual([
      { argv: ['a'], nested: true, redirects: ['>out'], connector: ';' },
      { argv: ['b'], nested: true, redirects: ['>out'], connector: ';' },
      { argv: ['f'], nested: false },
    ]);
    expect(await reading('function f() { b $(id); } 2>&1 > g')).toEqual([
      { argv: ['id'], nested: true },
      { argv: ['b', '$(id)'], nested: true, redirects: ['2>&1', '>g'] },
    ]);
    expect(await reading('x; f() { b; } > out')).toEqual([
      { argv: ['x'], nested: false, connector: ';' },
      { argv: ['b'], nested: true, redirects: ['>out'] },
    ]);
    expect(await reading('f() { g() { b; } > in; } > out')).toEqual([{ argv: ['b'], nested: true, redirects: ['>in', '>out'] }]);
    expect(await reading('f() ( b ) < $(mktemp)')).toEqual([
      { argv: ['b'], nested: true, redirects: ['<$(mktemp)'] },
      { argv: ['mktemp'], nested: true },
    ]);
    expect((await gateErrorOf(() => parseCommand('f() { b; } > f x'))).message).toMatch(/^the command is unreadable: words after the redirection of a function \(x\)/);
  });

  it('the rest of the line after a here-document is read as commands of their own, not as the first one’s words', async () => {
    expect(await reading('cat <<EOF && rm -rf x\nbody\nEOF')).toEqual([
      { argv: ['cat'], nested: false, redirects: ['<<EOF'], connector: '&&' },
      { argv: ['rm', '-rf', 'x'], nested: false },
    ]);
    const commands = await parseCommand('cat <<EOF && echo $(id)\nbody\nEOF');
    expect(commands.map(({ argv, substitutions }) => ({ argv, substitutions }))).toEqual([
      { argv: ['cat'], substitutions: [] },
      { argv: ['id'], substitutions: [] },
      { argv: ['echo', '$(id)'], substitutions: ['$(id)'] },
    ]);
    expect(await reading('cat <<EOF # a note\nbody\nEOF')).toEqual([{ argv: ['cat'], nested: false, redirects: ['<<EOF'] }]);
  });
});
