import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../main/tools/shell/parseCommand';
import { wordValue } from '../../main/tools/shell/shellWords';

// The prompt is only as true as the parser's agreement with bash. bash prints its own reading of
// a function body (`declare -f`): continuations joined, here-documents and quoting normalised. For
// each line the parser accepts, the sub-commands it lists must be the ones it lists for bash's
// own re-print of that line (or refused) — so a line the parser reads one way and bash another shows up here.
// (Only lines written for this test are given to bash, inside a function it defines and never calls.)

/** bash's re-print of `line` as the body of a function. */
function bashReading(line: string): string {
  const printed = execFileSync('bash', ['--norc', '--noprofile', '-c', `f() {\n${line}\n}\ndeclare -f f`], { encoding: 'utf8' });
  return printed.replace(/^f \(\) *\n\{ *\n/, '').replace(/\n\}\n?$/, '');
}

/** The sub-commands of a line as program and argument values, with how they are joined. */
async function reading(line: string): Promise<string[]> {
  return (await parseCommand(line)).map(
    (command) => `${command.nested ? '  ' : ''}${command.argv.map((word) => wordValue(word).value.replace(/\s+/g, ' ')).join(' ')}`,
  );
}

const lines = [
  'ls -la | sort > out.txt',
  'ls \\\n  -la \\\n  src',
  'a && b || c; d & e',
  'cat <<EOF | wc -l\nhello $(whoami)\nEOF',
  "cat <<'EOF' > notes.txt\n$(not run) \\\nstill body\nEOF",
  'cat <<-EOF\n\tindented\n\tEOF',
  "printf '%s\\n' 'a b' \"c $HOME\" d\\ e",
  "echo $'tab\\there' $\"x\"",
  'f() { rm -rf build; }; f',
  '(cd sub && make) ; { date; uname -a; } > info.txt',
  'if [ -f a ]; then rm a; elif [[ -d b ]]; then rmdir b; else echo none; fi',
  'for f in *.ts; do wc -l "$f"; done',
  'while read -r line; do echo "$line"; done < todo.txt',
  'case "$1" in start) ./run.sh ;; stop|halt) kill 1 ;; *) echo ? ;; esac',
  'diff <(sort a) <(sort b) | tee >(wc -l) > /dev/null',
  'x=$(ls $(dirname `which node`)) y=2 env',
  'echo a#b \\# c # a real comment',
  'echo "${x:-default}" "${#x}" "${x%.*}" "${x//a/b}"',
  'time ls; ! grep -q x file',
  'echo $((1 + 2)) $(( $# * 3 ))',
  'export A=1 B="two words"; local_var=3',
  'git log --format="%h %s" -n 5 -- src/ | head -3',
  'echo "$(echo \')\')" $(echo "(") ${x:-$(echo })}',
  'a=(1 2 3); echo "${a[@]}" {a,b}c ~/y',
  '[[ $x == *.ts && -n $y ]] && echo >&2 hi; exec 3>&-',
  'cmd 2>/dev/null >out; until false; do break; done',
  'echo a\\;b ; ls -- -r; echo \\$HOME "\\$HOME"',
  '{ c; } 2>&1 | tee log; rm > log -rf build; echo >&2 hi',
  'function g { echo hi; }; g',
  'echo ${x/#a/b} $- ${foo^^} "a\\"b" \'c\'"d"',
  'echo $(echo one; echo two) `echo three`',
  'x=1 y=$(date) ./run.sh --flag=$x "$@"',
  'echo ok # trailing comment with ; rm -rf ~',
  'echo \'#\' "#" x#y; ls',
  'cat 0< f 3> g; ls -l|grep x|wc; ls&&ls||ls',
  'cat <<EOF\n${x}\n$(echo a)\n`b`\n\\$notexpanded\nEOF',
  'nohup ./x > /dev/null 2>&1 & echo hi | tee >(cat) | cat',
  'echo ${x:+"$(id)"} "${x:-"a b"}" ${x#*/} ${x%%/*}',
  'for i in $(seq 3); do echo $i; done; echo "$(cat <<EOF\nin\nEOF\n)"',
];

describe('the parser agrees with bash', () => {
  it.each(lines)('%j', async (line) => {
    const ours = await reading(line);
    expect(ours.length).toBeGreaterThan(0);
    // Refusing bash's own spelling is fine (it fails closed); reading it otherwise is not.
    const theirs = await reading(bashReading(line)).catch((error: Error) => error.message);
    if (typeof theirs === 'string') expect(theirs).toMatch(/^the command is unreadable/);
    else expect(theirs).toEqual(ours);
  });
});
