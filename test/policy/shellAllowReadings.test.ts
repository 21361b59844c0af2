import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../main/tools/shell/parseCommand';
import { allowMatches, compileShellPattern, literalShellRule, redirectedPaths, runsAnyCode, shellView, unreadableForAllow } from '../../main/policy/shellRule';
import { RuleError } from '../../main/policy/ruleText';

/**
 * What a shell allow rule vouches for, read sub-command by sub-command: the words it matches, the
 * lines it cannot read whole (and says why), and the files a line's redirections read or write.
 */

async function only(line: string) {
  const commands = await parseCommand(line);
  return commands.at(-1)!;
}

/** Whether `shell_exec(<rule>)` as an allow matches the line's last sub-command. */
async function allows(rule: string, line: string): Promise<boolean> {
  return allowMatches(await compileShellPattern(rule), shellView(await only(line)));
}

/** Why an allow cannot vouch for the line's last sub-command, if it cannot. */
async function why(line: string): Promise<string | undefined> {
  return unreadableForAllow(await only(line));
}

describe('a shell rule as written', () => {
  it('ends in * (or Claude Code’s :*) for any further words, trimmed', async () => {
    expect(await compileShellPattern('  npm run test:*  ')).toMatchObject({ words: ['npm', 'run', 'test'], prefix: true });
    expect(await compileShellPattern('git log *')).toMatchObject({ words: ['git', 'log'], prefix: true });
    expect(await compileShellPattern('git status')).toMatchObject({ words: ['git', 'status'], prefix: false });
    expect(await compileShellPattern('echo \\*')).toMatchObject({ words: ['echo', '*'], prefix: false });
  });

  it('is refused unless it is one plain command naming a program, with * only last', async () => {
    for (const rule of ['echo "unclosed', 'a; b', 'a && b', 'a | b', 'echo $(id)', 'cat > out.txt', '> out.txt', '*', ':*', 'rm * x']) {
      await expect(compileShellPattern(rule), rule).rejects.toThrow(RuleError);
    }
  });
});

describe('an allow', () => {
  it('matches exactly its words, or more after a *', async () => {
    expect(await allows('git status', 'git status')).toBe(true);
    expect(await allows('git status', 'git status --short')).toBe(false);
    expect(await allows('git status', 'git')).toBe(false);
    expect(await allows('git status *', 'git status --short')).toBe(true);
    expect(await allows('git status *', 'git')).toBe(false);
  });

  it('looks through a safe environment prefix and a harmless wrapper, to the words that run', async () => {
    expect(await allows('ls *', 'LANG=C ls -la')).toBe(true);
    expect(await allows('ls *', 'timeout 5 ls -la')).toBe(true);
    expect(await allows('ls -la', 'LC_ALL=C TZ=UTC ls -la')).toBe(true);
  });

  it('never matches a line it cannot read whole', async () => {
    expect(await allows('ls *', 'ls $(cat list)')).toBe(false);
    expect(await allows('ls *', 'FOO=1 ls')).toBe(false);
    expect(await allows('find *', 'find . -exec rm {} ;')).toBe(false);
  });
});

describe('why an allow cannot vouch for a command', () => {
  it('a substitution, an environment prefix that changes the program, a computed program name', async () => {
    expect(await why('ls $(cat list)')).toBe('it holds a substitution ($(…), `…`, <(…)), whose output the rule cannot see');
    expect(await why('LD_PRELOAD=./x.so ls')).toBe('the environment prefix LD_PRELOAD=… changes what the program does');
    expect(await why('LANG=C ls')).toBeUndefined();
    expect(await why('$tool --version')).toBe('the program name is computed when the line runs');
  });

  it('a wrapper or program that runs other programs or code the line does not show', async () => {
    expect(await why('sudo ls')).toBe('sudo runs another program');
    expect(await why('nice -n 5 ls')).toBeUndefined();
    expect(await why('source ./setup.sh')).toBe('source runs code or programs the line does not show');
    expect(await why('f() { ls; }; f')).toBe('it calls a function defined on the line');
  });

  it('a shell or interpreter handed code as text or input, not one running a file the line names', async () => {
    for (const line of ["python3 -c 'print(1)'", "python3 -Bc 'print(1)'", "node --eval 'x'", "node --print 'x'", "perl -pe 's/a/b/' f", 'python3 < script.py', 'bash <<EOF\nls\nEOF', 'bash <<< "ls"', 'bash', 'bash -i', 'python3 app.py < in.txt', 'bash run.sh <<-EOF\n\tx\n\tEOF']) {
      expect(await why(line), line).toMatch(/runs code handed to it as text or input$/);
    }
    for (const line of ['python3 script.py', 'bash -x build.sh', 'python3 -Xdev app.py', 'node build-site', 'python3 app.py > out.txt']) {
      expect(await why(line), line).toBeUndefined();
    }
  });

  it('an interpreter of another language given code inline, by one letter or a long option', async () => {
    for (const line of ["R -e 'readLines(1)'", "julia -e 'read(1)'", "erl -noshell -eval 'x'", "pwsh -Command 'gc key'", "sbcl --eval '(x)'", "tclsh <<< 'exec cat key'", "expect -c 'spawn cat key'", 'octave --eval=x']) {
      expect(await why(line), line).toMatch(/runs code handed to it as text or input$/);
    }
    expect(await why('julia script.jl')).toBeUndefined();
  });

  it('an interpreter or editor by a versioned or alternative name', async () => {
    for (const line of ["python3.11 -c 'x'", "perl5.36.0 -e 'x'", "tclsh8.6 <<< 'exec id'", "php8.2 -r 'x'", "lua5.4 -e 'x'"]) {
      expect(await why(line), line).toMatch(/runs code handed to it as text or input$/);
    }
    for (const line of ["vim.basic -es -c 'r key'", "editor -c '!id'", "gdbtui -batch -ex 'shell id'", 'vim.tiny x']) expect(await why(line), line).toMatch(/runs commands of its own language/);
    for (const line of ['python3.11 app.py', 'lua5.4 x.lua', 'gcc-12 -c x.c', 'node20 x.js']) expect(await why(line), line).toBeUndefined();
  });

  it('a program whose every run can execute commands of its own language', async () => {
    for (const line of ["sqlite3 :memory: '.shell cat key'", "sqlite3 app.db \"select readfile('key')\"", "vim -c '!cat key' -c q", 'vim notes.txt', "dc -e '!cat key'", "gdb -batch -ex 'shell cat key'", "ex -sc 'r key|%p|q!' README", "m4 <<< 'syscmd(cat key)'", "psql -c '\\! cat key'"]) {
      expect(await why(line), line).toMatch(/runs commands of its own language, which can read, write and run anything the rules cannot see$/);
    }
  });

  it('make --eval, a pager started with a command, man given a pager or browser', async () => {
    for (const line of ["make --eval='$(shell cat key)'", 'make -E x', 'make -Ex', "less '+!cat key' README", "more +!x README", "man -P 'cat key' ls", 'man --pager=cat ls', 'man -H ls']) expect(await why(line), line).toBeDefined();
    for (const line of ['make test', 'make -j4 all', 'less README', 'man ls', 'man -k printf']) expect(await why(line), line).toBeUndefined();
  });

  it('an awk program that reads or writes files it names itself, or runs commands', async () => {
    const cases: Array<[string, RegExp]> = [
      ['awk \'BEGIN { while ((getline line < "key") > 0) print line }\'', /getline </],
      ['awk \'BEGIN { getline < "key"; print }\'', /getline </],
      ['awk \'{ print > "out" }\' README', /print >/],
      ['awk \'{ print $1 >> "out" }\' README', /print >/],
      ['awk \'{ printf("%s\\n", $1) > "out" }\' README', /print >/],
      ['awk \'{ print > "/dev/stderr" $1 }\' README', /print >/],
      ['awk \'BEGIN { system("cat key") }\'', /system\(\)/],
      ['awk \'{ print | "sh" }\' README', /pipes/],
      ['awk \'BEGIN { "cat key" | getline x; print x }\'', /pipes/],
      ['gawk \'BEGIN { print |& "cat" }\'', /pipes/],
      ['gawk \'@include "lib"\'', /@/],
      ['awk -F: -v n=1 \'BEGIN { system("id") }\'', /system\(\)/],
      ['awk "$prog" README', /computed when the line runs/],
      ['awk -f - README', /read from its input/],
      ['awk -f- README', /read from its input/],
      ['gawk --file=- README', /read from its input/],
      // A / where awks differ on division and regex: mawk divides after getline, starts a regex after length, $, do, else.
      ['awk \'BEGIN { x = getline / 1; print "a" > "out"; y = 1 / 1 }\'', /awks read differently/],
      ['awk \'BEGIN { x = length /"/; print "a" > "out"; y = "\\"" }\'', /awks read differently/],
      ['awk \'BEGIN { x = $/"/; print "a" > "out"; y = "\\"" }\'', /awks read differently/],
      ['awk \'BEGIN { if (1) x = 1; else /"/; system("id"); y = "\\"" }\'', /awks read differently/],
      ['awk \'BEGIN { case = 2; x = case / 1; print "a" > "out"; y = 1 / 1 }\'', /awks read differently/],
      ['awk \'BEGIN { if ("=" ~ /=/) print "a" > "out" }\'', /print >/],
      ["awk $'BEGIN { system\\f(\"id\") }'", /system\(\)/],
      ["awk $'BEGIN { system\\v(\"id\") }'", /system\(\)/],
      ['awk \'BEGIN { ARGV[1] = "key"; ARGC = 2 } { print }\'', /ARGV/],
      // gawk's and mawk's options that load code or write files.
      ['gawk -W source=\'BEGIN{system("id")}\'', /option -W/],
      ['gawk -i key \'BEGIN{}\'', /option -i/],
      ['gawk -oout \'BEGIN{}\'', /option -oout/],
      ['gawk -pout \'BEGIN{}\'', /option -pout/],
      ['gawk -dout \'BEGIN{}\'', /option -dout/],
      ['gawk -l ext \'BEGIN{}\'', /option -l/],
    ];
    for (const [line, reason] of cases) expect(await why(line), line).toMatch(reason);
  });

  it('not an awk program that only reads its input and prints, whatever > and / it compares or divides with', async () => {
    for (const line of [
      "awk '{ print $1 }' README",
      "awk '$3 > 100 { print $1, $2 }' README",
      "awk '{ print ($1 > 2) }' README",
      "awk '{ if ($2 > 3) print $1 > \"/dev/stderr\" }' README",
      "awk -F'|' '{ print $2 }' README",
      "awk -F: -v n=2 '{ print $n }' README",
      "awk '{ s += $2 } END { print s / NR }' README",
      "awk '/a\\/b>c|d/ { print }' README",
      "awk '{ n = $1 / 2 > 1; print n }' README",
      "awk '{ s = \"x > y | z\"; print s }' README",
      "awk '# print > \"out\"\n{ print }' README",
      "awk '(getline line) < 0 { print }' README",
      "awk '$1 < 5 { while (getline > 0) n++ } END { print n }' README",
      'awk -f prog.awk README',
    ]) {
      expect(await why(line), line).toBeUndefined();
    }
  });

  it('find -exec and its kin, but not a find that only lists, nor a name that looks like the option', async () => {
    for (const option of ['-exec', '-execdir', '-ok', '-okdir']) {
      expect(await why(`find . ${option} rm {} ;`), option).toBe('find -exec runs another program');
    }
    expect(await why("find . -name '*.o'")).toBeUndefined();
    expect(await why('find . -name x-ok')).toBeUndefined();
    expect(await why('find . -name -okra.txt')).toBeUndefined();
    expect(await why('grep -r -exec .')).toBeUndefined();
  });

  it('git with a -c or --config-env setting before its subcommand, which may name a command git runs', async () => {
    for (const line of ['git -c core.pager=less log', 'git -ccore.pager=less log', 'git --config-env=core.pager=PAGER log']) {
      expect(await why(line), line).toBe('git -c may set a command git runs');
    }
    expect(await why('git log -n 5')).toBeUndefined();
    // After the subcommand, -c is that command's own option: a new branch, a message taken from a commit, a count.
    for (const line of ['git switch -c topic', 'git commit -c HEAD', 'git grep -c foo']) expect(await why(line), line).toBeUndefined();
    expect(await why('ls -c')).toBeUndefined();
  });
});

describe('programs that run whatever code they are handed', () => {
  it('are shells, interpreters and runners of text, by base name', () => {
    for (const program of ['bash', '/bin/sh', 'python3', '/usr/bin/node', 'eval', 'sudo', 'xargs', 'sqlite3', 'vim', 'Rscript']) expect(runsAnyCode(program), program).toBe(true);
    for (const program of ['git', 'ls', '/usr/bin/make']) expect(runsAnyCode(program), program).toBe(false);
  });
});

describe('the files a line’s redirections read or write', () => {
  it('reads <, writes >, >> and >& to a file; descriptors, here-documents and /dev/null name no file', async () => {
    const paths = async (line: string) => redirectedPaths(await only(line)).map((path) => [path.access, path.target.value, path.written]);
    expect(await paths('cat < in.txt > out.txt 2>> err.log')).toEqual([
      ['read', 'in.txt', '< in.txt'],
      ['write', 'out.txt', '> out.txt'],
      ['write', 'err.log', '2>> err.log'],
    ]);
    expect(await paths('echo x >& all.log')).toEqual([['write', 'all.log', '>& all.log']]);
    expect(await paths('read line 10< in.txt')).toEqual([['read', 'in.txt', '10< in.txt']]);
    // bash refuses `<& file`; read as a read, a read deny still holds it.
    expect(await paths('cat <& in.txt')).toEqual([['read', 'in.txt', '<& in.txt']]);
    for (const line of ['echo x 2>&1', 'echo x >&2', 'echo x >&-', 'echo x > /dev/null', 'cat <<EOF\nx\nEOF', 'cat <<-EOF\n\tx\n\tEOF', 'cat <<< "x"']) {
      expect(await paths(line), line).toEqual([]);
    }
  });
});

describe('a rule made from a command', () => {
  it('matches its stars literally', () => {
    expect(literalShellRule('  rm * ')).toBe('rm \\*');
    expect(literalShellRule('* x')).toBe('\\* x');
    expect(literalShellRule('echo a*b *')).toBe('echo a*b \\*');
    expect(literalShellRule('echo *x')).toBe('echo *x');
  });
});
