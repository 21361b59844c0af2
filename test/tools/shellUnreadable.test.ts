import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { GateError } from '../../shared/errors';
import { gateErrorOf } from '../fixtures/gateErrors';
import { WAIT_MS } from '../fixtures/processes';
import { parseCommand } from '../../main/tools/shell/parseCommand';
import { makeTempFolder, removeTempFolder } from '../fixtures/tempFolder';

// Lines where the grammar the prompt is drawn from and bash could disagree are refused as
// unreadable. Each hostile form is first run in real bash, to prove it does run a command that the
// line never shows, then given to the parser, which must refuse it; its harmless neighbours are read.

/** The GateError parsing `command` fails with. */
function refusal(command: string): Promise<GateError> {
  return gateErrorOf(() => parseCommand(command));
}

const scratch = makeTempFolder();
afterAll(() => removeTempFolder(scratch));
const marker = join(scratch, 'hidden-command-ran');

/** Runs `line` in bash with `x` holding a subscript whose `$(…)` touches the marker; whether it ran. */
function bashRunsHiddenCommand(line: string): boolean {
  rmSync(marker, { force: true });
  try {
    execFileSync('bash', ['-c', `x='a[$(touch ${marker})]'; ${line}`], { stdio: 'ignore', cwd: scratch, timeout: WAIT_MS });
  } catch {
    // Many of these fail after the hidden command ran; whether it ran is what counts.
  }
  return existsSync(marker);
}

describe('arithmetic and variable-name contexts that run $(…) from a variable', () => {
  const hostile = [
    'echo $((x))',
    'echo $(( $x + 1 ))',
    'echo $[x]',
    '((x))',
    '[[ $x -eq 0 ]]',
    '[[ x -lt 1 ]]',
    'let z=x',
    'declare -i z=$x',
    'declare -i z; z=$x',
    'test -v "$x"',
    '[ -v "$x" ]',
    '[[ -v $x ]]',
    'printf -v "$x" 1',
    'printf -v"$x" 1',
    'command printf -v "$x" 1',
    'builtin read "$x" <<< 1',
    'read -r -- "$x" <<< 1',
    'declare -g "$x"=1',
    'typeset "$x"=1',
    'let "$x"',
    'read "$x" <<< 1',
    'declare "$x"=1',
    'declare -n r="$x"; echo $r',
    'echo ${!x}',
    'echo ${a[x]}',
    'echo ${a[$x]:-}',
    'a[x]=1',
    'b=([x]=1)',
    'set -- a; echo ${@:x}',
    'echo ${x@P}',
    'for ((i=x; i<0; i++)); do :; done',
    'a=(1 2); unset "$x"',
    'a=(1 2); unset -v "$x"',
    'sleep 0 & wait -n -p "$x"',
    'mapfile -C "$x" -c 1 lines <<< a',
    'readarray -t -C "$x" -c 1 lines <<< a',
    'PS4="$x"; set -x; true',
    'export PS4="$x"; set -x; true',
  ];
  it.each(hostile)('%s: bash runs the hidden command; the line is refused as unreadable', async (line) => {
    expect(bashRunsHiddenCommand(line)).toBe(true);
    const error = await refusal(line);
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toMatch(/^the command is unreadable: .+; nothing was run$/);
  });

  const harmless = [
    'echo $((1 + 2)) $(( $# * 0x10 ))',
    '[[ $# -eq 0 ]] && echo none',
    '[ "$x" -eq 0 ]',
    'test "$x" -gt 1',
    'let z=1+2',
    'test -v x',
    'printf -v z %s "$x"',
    'read -r -p "$x" line <<< 1',
    'local_dir="$x"; echo ${a[0]} ${a[@]} ${!a[@]} ${x:1:2} ${x:-d} ${x: -1}',
    'unset x',
    'mapfile -t lines <<< a',
    'PS4="+ "; set -x; true',
    'printf -- -v "$x"',
    'echo "${x:${#x}}" $(( ${#x} ))',
  ];
  it.each(harmless)('%s: bash runs nothing hidden; the line is read', async (line) => {
    expect(bashRunsHiddenCommand(line)).toBe(false);
    expect((await parseCommand(line)).length).toBeGreaterThan(0);
  });

  it('enable -f (a shared library loaded into bash) is refused, naming why', async () => {
    expect((await refusal('enable -f ./evil.so evil')).message).toContain('enable -f loads a shared library');
    expect((await parseCommand('enable -n echo')).length).toBeGreaterThan(0);
  });

  it('names what was wrong and how to fix it', async () => {
    expect((await refusal('echo $(( count + 1 ))')).message).toContain('"count + 1" as arithmetic');
    expect((await refusal('printf -v "$name" 1')).message).toContain('use a plain name');
    expect((await refusal('echo ${!ref}')).message).toContain('indirect expansion');
  });
});

describe('backslash-newline', () => {
  it('inside a word bash joins the lines (r⏎m runs rm): refused, and bash proves it', async () => {
    rmSync(marker, { force: true });
    execFileSync('bash', ['-c', `tou\\\nch ${marker}`], { stdio: 'ignore' });
    expect(existsSync(marker)).toBe(true);
    for (const line of ['r\\\nm -rf x', 'echo "$(r\\\nm -rf x)"', 'echo "a\\\nb"', "echo $'a\\\nb'", 'cat <<EOF\n$(r\\\nm x)\nEOF', 'ls \\\n\\\n-la']) {
      expect((await refusal(line)).message, JSON.stringify(line)).toMatch(/^the command is unreadable: a backslash at the end of line \d+ joins two lines/);
    }
  });

  it('between words, in single quotes, in a comment and in a quoted here-document it is read', async () => {
    expect((await parseCommand('ls \\\n  -la \\\n  src')).map((command) => command.argv)).toEqual([['ls', '-la', 'src']]);
    expect((await parseCommand("echo 'a\\\nb'"))[0]!.argv).toEqual(['echo', "'a\\\nb'"]);
    expect((await parseCommand('echo a # note \\\nls')).map((command) => command.argv)).toEqual([['echo', 'a'], ['ls']]);
    expect((await parseCommand("cat <<'EOF'\na \\\nb\nEOF")).map((command) => command.argv)).toEqual([['cat']]);
  });
});

describe('blanks bash and the grammar split differently', () => {
  it('a backslash-blank the grammar skips hides a command behind a "comment": refused, and bash proves it runs', async () => {
    for (const blank of [' ', '\t']) {
      const line = `echo hi \\${blank}#; touch ${marker}`;
      rmSync(marker, { force: true });
      execFileSync('bash', ['-c', line], { stdio: 'ignore' });
      expect(existsSync(marker), JSON.stringify(line)).toBe(true);
      expect((await refusal(line)).message).toMatch(/^the command is unreadable: a backslash before a blank on line 1/);
    }
    expect((await refusal('a\\\tb')).code).toBe('EVALIDATION');
  });

  it('a carriage return, vertical tab or form feed outside quotes is refused; inside quotes it is read', async () => {
    for (const blank of ['\r', '\v', '\f']) {
      expect((await refusal(`x=1${blank}rm -rf build`)).message, JSON.stringify(blank)).toMatch(/outside quotes, which bash reads as part of a word/);
      expect((await refusal(`ls \\${blank}\nrm -rf build`)).code).toBe('EVALIDATION');
      expect((await parseCommand(`printf '%s' 'a${blank}b' "c${blank}d"`))[0]!.argv).toHaveLength(4);
    }
  });

  it('an escaped blank inside a word is one word for both', async () => {
    expect((await parseCommand('ls my\\ file.txt'))[0]!.argv).toEqual(['ls', 'my\\ file.txt']);
  });
});

describe('reserved words', () => {
  it('a group after ! that the grammar reads as the program "{" is refused; bash runs what is in it', async () => {
    rmSync(marker, { force: true });
    execFileSync('bash', ['-c', `! { touch ${marker}; }; true`], { stdio: 'ignore' });
    expect(existsSync(marker)).toBe(true);
    expect((await refusal(`! { rm -rf build; }`)).message).toMatch(/reserved word "\{" as a program name/);
    expect((await parseCommand('{ ls; } && ! grep -q x f; time ls')).map((command) => command.argv[0])).toEqual(['ls', 'grep', 'time']);
  });
});

describe('here-documents', () => {
  it('a partly quoted or escaped delimiter is refused', async () => {
    for (const line of ["cat <<E'O'F\nhi\nEOF", 'cat <<E"O"F\nhi\nEOF', 'cat <<E"OF"\n$(id)\nEOF', 'cat <<E\\\nOF\nx\nE\nOF', "cat <<'E'OF\nhi\nEOF"]) {
      expect((await refusal(line)).code, JSON.stringify(line)).toBe('EVALIDATION');
    }
    // Spellings the grammar reads, but not as bash does: refused by name.
    for (const line of ['cat <<\\EOF\n$(id)\nEOF', 'cat <<E\\OF\n$(id)\nEOF', "cat <<$'EOF'\n$(id)\nEOF\n"]) {
      expect((await refusal(line)).message, JSON.stringify(line)).toMatch(/^the command is unreadable: the here-document delimiter .+ is partly quoted or escaped/);
    }
  });

  it('an end line with blanks after the delimiter is not an end for bash: refused', async () => {
    // bash reads `EOF ` as part of the body and runs on to the bare `EOF`.
    const line = 'cat <<EOF\nx\nEOF \nrm -rf build\nEOF';
    expect(execFileSync('bash', ['-c', line.replace('rm -rf build', 'echo body')], { encoding: 'utf8' })).toBe('x\nEOF \necho body\n');
    expect((await refusal(line)).message).toMatch(/here-document "EOF" has no line that is exactly "EOF"/);
  });

  it('a body the grammar reads as commands, because a pipe continues the start line, is refused', async () => {
    // bash: the body is `rm -rf build` (data), and cat pipes into wc; the grammar ran `rm` as the next stage.
    const line = 'cat <<EOF |\nrm -rf build\nEOF\nwc -l';
    expect(execFileSync('bash', ['-c', line.replace('rm -rf build', 'not a command')], { encoding: 'utf8' }).trim()).toBe('1');
    expect((await refusal(line)).message).toMatch(/read the body of the here-document "EOF" elsewhere than bash does/);
  });

  it('plain and wholly quoted delimiters, and <<- with tabs, are read', async () => {
    for (const line of ['cat <<EOF\nhi\nEOF', "cat <<'EOF'\n$(x)\nEOF", 'cat <<"END_1"\nhi\nEND_1', 'cat <<-EOF\n\thi\n\tEOF']) {
      expect((await parseCommand(line))[0]!.argv, JSON.stringify(line)).toEqual(['cat']);
    }
  });
});
