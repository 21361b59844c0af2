/**
 * What an awk program does besides reading the files it is given and printing: awk is a language,
 * and its program text can read any file (`getline line < "key"`), write any file (`print > "out"`),
 * and run commands (`system("…")`, `print | "sh"`, `"cmd" | getline`, gawk's `|&`, `@include`,
 * indirect calls). None of those names a file on the command line, so no path rule sees them: an
 * allow of `awk *` cannot vouch for such a program, as it cannot for `python3 -c`.
 *
 * The program is read as awk's lexer reads it (strings, regex literals, comments, line
 * continuations), not searched as text: a `>` in a comparison (`$3 > 100`) or inside a string or
 * regex is not a redirection. POSIX makes an unparenthesized `>` in a print statement's list a
 * redirection (to compare there one writes `print (a > b)`); that is the rule applied. Written by
 * hand: no maintained awk parser exists for JavaScript.
 */

/** Output files a print may name and still only print. */
const STANDARD_OUTPUTS = new Set(['/dev/stdout', '/dev/stderr', '-']);

type Token = { kind: 'word' | 'string' | 'regex' | 'number' | 'op'; text: string };

/**
 * Tokens after which awks differ on whether a `/` divides or starts a regex (mawk divides after
 * `getline` but starts a regex after `length`, `$`, `do`, `else` or `x++`; `case` is a keyword only
 * to gawk): a program with a `/` there cannot be read for certain.
 */
const AMBIGUOUS_BEFORE_SLASH = new Set(['getline', 'length', 'do', 'else', 'exit', 'return', 'case', 'in', 'print', 'printf', 'delete', 'next', 'nextfile', 'func', 'function', 'BEGIN', 'END', '$', '++', '--']);

/** Whether a `/` after this token divides (it follows an operand) rather than starting a regex; undefined where awks differ. */
function divides(token: Token | undefined): boolean | undefined {
  if (!token) return false;
  if (token.kind !== 'op' && AMBIGUOUS_BEFORE_SLASH.has(token.text)) return undefined;
  if (token.kind === 'op' && AMBIGUOUS_BEFORE_SLASH.has(token.text)) return undefined;
  if (token.kind !== 'op') return true;
  return token.text === ')' || token.text === ']';
}

/** The closing delimiter's index, honouring backslash escapes (and, in a regex, bracket expressions). */
function closing(text: string, from: number, quote: string): number {
  let inBracket = false;
  for (let at = from; at < text.length; at++) {
    const char = text[at]!;
    if (char === '\\') at++;
    else if (quote === '/' && char === '[') inBracket = true;
    else if (quote === '/' && char === ']') inBracket = false;
    else if (char === quote && !inBracket) return at;
    else if (char === '\n') return at;
  }
  return text.length;
}

const OPERATORS = ['>>', '>=', '<=', '==', '!=', '||', '|&', '&&', '++', '--', '+=', '-=', '*=', '/=', '%=', '^=', '**'];

/** The program's tokens, newlines kept (they end statements); or why it cannot be read for certain. */
function tokens(program: string): Token[] | { ambiguous: string } {
  const found: Token[] = [];
  for (let at = 0; at < program.length; ) {
    const char = program[at]!;
    if (char === '\\' && program[at + 1] === '\n') at += 2;
    else if (/[ \t\r\f\v]/.test(char)) at++;
    else if (char === '#') at = program.indexOf('\n', at) < 0 ? program.length : program.indexOf('\n', at);
    else if (char === '"') {
      const end = closing(program, at + 1, '"');
      found.push({ kind: 'string', text: program.slice(at + 1, end) });
      at = end + 1;
    } else if (char === '/' && divides(found.at(-1)) === undefined) {
      return { ambiguous: `its program has a / after ${found.at(-1)!.text} that awks read differently (a division or a regex), so what it does cannot be read for certain` };
    } else if (char === '/' && !divides(found.at(-1))) {
      const end = closing(program, at + 1, '/');
      found.push({ kind: 'regex', text: program.slice(at + 1, end) });
      at = end + 1;
    } else if (/[A-Za-z_]/.test(char)) {
      const word = /^[A-Za-z_][A-Za-z0-9_]*/.exec(program.slice(at))![0];
      found.push({ kind: 'word', text: word });
      at += word.length;
    } else if (/[0-9.]/.test(char)) {
      const number = /^[0-9.]+([eE][+-]?[0-9]+)?/.exec(program.slice(at))![0];
      found.push({ kind: 'number', text: number });
      at += number.length;
    } else {
      const operator = OPERATORS.find((op) => program.startsWith(op, at)) ?? char;
      found.push({ kind: 'op', text: operator });
      at += operator.length;
    }
  }
  return found;
}

const OPENS = new Set(['(', '[']);
const CLOSES = new Set([')', ']']);
/** Tokens that end a simple statement. */
const STATEMENT_ENDS = new Set([';', '\n', '{', '}']);

/**
 * Why an allow cannot vouch for this awk program (it reads or writes files it names itself, or
 * runs commands), or undefined when it only reads its input and prints.
 */
export function awkProgramEffects(program: string): string | undefined {
  const list = tokens(program);
  if (!Array.isArray(list)) return list.ambiguous;
  let depth = 0;
  /** The depth a print statement started at, while one is being read. */
  let printDepth: number | undefined;
  /** The depth a getline was met at, while the rest of its expression is being read. */
  let getlineDepth: number | undefined;
  for (const [index, token] of list.entries()) {
    const next = list[index + 1];
    if (token.kind === 'op') {
      if (OPENS.has(token.text)) depth++;
      else if (CLOSES.has(token.text)) {
        depth--;
        if (getlineDepth !== undefined && depth < getlineDepth) getlineDepth = undefined;
        if (printDepth !== undefined && depth < printDepth) printDepth = undefined;
      } else if (STATEMENT_ENDS.has(token.text)) {
        printDepth = undefined;
        getlineDepth = undefined;
      } else if (token.text === '|' || token.text === '|&') return 'its program pipes to or from a command (|), which the rules cannot read';
      else if (token.text === '@') return 'its program calls a function by a computed name or loads code (@), which the rules cannot read';
      else if (token.text === '<' && getlineDepth !== undefined) return 'its program reads a file it names itself (getline <), which the path rules cannot see';
      else if ((token.text === '>' || token.text === '>>') && printDepth === depth) {
        const statementEnds = list[index + 2] === undefined || STATEMENT_ENDS.has(list[index + 2]!.text);
        if (next?.kind === 'string' && STANDARD_OUTPUTS.has(next.text) && statementEnds) continue;
        return 'its program writes a file it names itself (print >), which the path rules cannot see';
      }
    } else if (token.kind === 'word') {
      if (token.text === 'print' || token.text === 'printf') printDepth = depth;
      else if (token.text === 'getline') getlineDepth = depth;
      else if (token.text === 'system' && next?.text === '(') return 'its program runs a command (system()), which the rules cannot read';
      else if (token.text === 'ARGV' || token.text === 'ARGC') return 'its program can change the files it reads (ARGV), which the path rules cannot see';
    }
  }
  return undefined;
}
