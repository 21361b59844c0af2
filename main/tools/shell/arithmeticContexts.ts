import type { Node } from 'web-tree-sitter';
import { isAssignment, wordValue } from './shellWords';

/**
 * Bash evaluates arithmetic in many places, and arithmetic reads variables *as expressions*: when
 * `x='a[$(rm -rf ~)]'`, each of `$((x))`, `((x))`, `[[ $x -eq 0 ]]`, `let x`, `${s:x}`, `${a[x]}`,
 * `test -v "$x"`, `printf -v "$x"`, `read "$x"` and `declare "$x"=1` runs that `rm` — a command
 * that appears nowhere on the line a person approves. The same holds for `${!x}` (indirect
 * expansion), `${x@P}` (prompt expansion) and namerefs (`declare -n r="$x"`). So in these places
 * only literal numbers (and parameters that are always numbers: `$#`, `$?`, `$$`, `$!`, `${#…}`)
 * and plain variable names are read; anything else makes the line unreadable.
 * (Each case was tried against bash 5.2: see test/tools/shellUnreadable.test.ts.)
 */

/** Operators of `[[ … ]]` that compare numbers, evaluating both sides as arithmetic. */
const ARITHMETIC_TESTS = new Set(['-eq', '-ne', '-lt', '-le', '-gt', '-ge']);
/** Builtins that set or declare variables by name (a subscripted name is evaluated). */
const DECLARATIONS = new Set(['declare', 'typeset', 'local', 'export', 'readonly']);
/** Options of `read` that take a value (the value is not a variable name). */
const READ_VALUE_OPTIONS = new Set(['d', 'i', 'n', 'N', 'p', 't', 'u']);
/** A variable name bash takes as is: an identifier, maybe with a literal numeric subscript. */
const PLAIN_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\[\d+\])?$/;
/** Variables bash expands as prompts (PS4 at each `set -x` line) or runs (PROMPT_COMMAND), later than the line that sets them. */
const PROMPT_VARIABLES = new Set(['PS0', 'PS1', 'PS2', 'PS3', 'PS4', 'PROMPT_COMMAND']);
/** Options of mapfile/readarray that take a value (-C's is code, refused apart). */
const MAPFILE_VALUE_OPTIONS = new Set(['d', 'n', 'O', 's', 'u', 'c']);

/** Why `text` is not literal arithmetic, or undefined when only numbers and operators are in it. */
function nonLiteralArithmetic(text: string): string | undefined {
  const rest = text
    // The target of a plain assignment (`x=1`, `let n=2`) is set, not read.
    .replace(/(^|[;,(\s])[A-Za-z_][A-Za-z0-9_]*\s*=(?!=)/g, '$1')
    .replace(/\$\{#[A-Za-z_][A-Za-z0-9_]*\}|\$[#?$!]/g, '0')
    .replace(/\b(0[xX][0-9a-fA-F]+|\d+#[0-9A-Za-z@_]+|\d+)\b/g, '0');
  return /[A-Za-z_$`[\]\\'"]/.test(rest) ? text.trim() : undefined;
}

function arithmeticRefusal(where: string, text: string): string | undefined {
  const operand = nonLiteralArithmetic(text);
  return operand === undefined
    ? undefined
    : `${where} evaluates ${JSON.stringify(operand)} as arithmetic, and arithmetic runs any $(…) hidden in a variable's value; write the numbers themselves (for a loop: for i in {1..10})`;
}

/** A prompt variable given a value that expands (a `$`, a backquote or a backslash escape): code run later, unseen. */
function promptVariableRefusal(name: string, value: string | undefined): string | undefined {
  return PROMPT_VARIABLES.has(name) && value !== undefined && /[$`\\]/.test(value)
    ? `${name} is expanded by bash as a prompt (PS4 at every traced line, PROMPT_COMMAND run), so a $(…) in ${JSON.stringify(value)} runs later, unseen; give it plain text`
    : undefined;
}

function nameRefusal(where: string, word: string): string | undefined {
  const { value, computed } = wordValue(word);
  return !computed && PLAIN_NAME.test(value)
    ? undefined
    : `${where} takes ${JSON.stringify(word)} as a variable name, and bash evaluates a computed or subscripted name (running any $(…) in it); use a plain name`;
}

/** The reason the first arithmetic or name-evaluating context of the tree is unreadable, if any. */
export function arithmeticRefusalIn(root: Node): string | undefined {
  const integerNames = new Set<string>();
  let found: string | undefined;
  const visit = (node: Node): void => {
    if (found) return;
    found = refusalAt(node, integerNames);
    for (const child of node.namedChildren) if (child && !found) visit(child);
  };
  visit(root);
  return found;
}

function refusalAt(node: Node, integerNames: Set<string>): string | undefined {
  const children = node.children.filter((child): child is Node => child !== null);
  switch (node.type) {
    case 'arithmetic_expansion':
      return arithmeticRefusal(node.text, children.slice(1, -1).map((child) => child.text).join(' '));
    case 'compound_statement':
      return children[0]?.type === '((' ? arithmeticRefusal(node.text, children.slice(1, -1).map((child) => child.text).join(' ')) : undefined;
    case 'c_style_for_statement': {
      const close = children.findIndex((child) => child.type === '))');
      return arithmeticRefusal('for ((…))', children.slice(2, close).map((child) => child.text).join(' '));
    }
    case 'binary_expression': {
      const operator = children.find((child) => child.type === 'test_operator');
      // `[ "$x" -eq 0 ]` is the test builtin, which reads plain numbers; only `[[ … ]]` evaluates arithmetic.
      if (!operator || !ARITHMETIC_TESTS.has(operator.text) || !insideDoubleBrackets(node)) return undefined;
      return children.map((child) => (child === operator ? undefined : arithmeticRefusal(`[[ … ${operator.text} … ]]`, child.text))).find(Boolean);
    }
    case 'unary_expression': {
      const operator = children.find((child) => child.type === 'test_operator');
      const operand = children.at(-1);
      return operator?.text === '-v' && operand ? nameRefusal('-v', operand.text) : undefined;
    }
    case 'subscript': {
      const open = children.findIndex((child) => child.type === '[');
      const index = children.slice(open + 1, -1).map((child) => child.text).join('');
      return index === '@' || index === '*' ? undefined : arithmeticRefusal(`the array index in ${node.text}`, index);
    }
    case 'expansion':
      return expansionRefusal(node, children);
    case 'array':
      for (const element of children) {
        const index = /^\[([^\]]*)\]\+?=/.exec(element.text);
        const refusal = index ? arithmeticRefusal(`the array index in ${element.text}`, index[1]!) : undefined;
        if (refusal) return refusal;
      }
      return undefined;
    case 'variable_assignment': {
      const name = children[0]?.text ?? '';
      const value = children.slice(2).map((child) => child.text).join('');
      return promptVariableRefusal(name, value) ?? (integerNames.has(name) ? arithmeticRefusal(`${name} (declared an integer)`, value) : undefined);
    }
    case 'unset_command':
      // `unset 'a[$(…)]'`: bash evaluates a subscripted name's index.
      return children
        .slice(1)
        .filter((child) => child.isNamed && !/^-[fvn]+$/.test(child.text))
        .map((child) => nameRefusal('unset', child.text))
        .find(Boolean);
    case 'declaration_command':
      return declarationRefusal(children, integerNames);
    case 'command':
      return commandRefusal(children.filter((child) => child.isNamed && child.type !== 'comment' && !child.type.endsWith('redirect')).map((child) => child.text));
    default:
      return undefined;
  }
}

function insideDoubleBrackets(node: Node): boolean {
  let current: Node | null = node;
  while (current && current.type !== 'test_command') current = current.parent;
  return current?.firstChild?.type === '[[';
}

function expansionRefusal(node: Node, children: Node[]): string | undefined {
  if (children[1]?.type === '!' && !/^\$\{![A-Za-z_][A-Za-z0-9_]*(\[[@*]\]|[@*])\}$/.test(node.text)) {
    return `${node.text} is an indirect expansion: bash reads the value of the variable named by another one, evaluating any $(…) in that name; name the variable itself`;
  }
  const transform = children.findIndex((child) => child.type === '@');
  if (transform >= 0 && children[transform + 1]?.text === 'P') {
    return `${node.text} expands its value as a prompt, running any $(…) in it; print the variable itself`;
  }
  const colon = children.findIndex((child) => child.type === ':');
  if (colon >= 0) return arithmeticRefusal(`the offset in ${node.text}`, children.slice(colon + 1, -1).map((child) => child.text).join(' '));
  return undefined;
}

function declarationRefusal(children: Node[], integerNames: Set<string>): string | undefined {
  const builtin = children[0]?.text ?? 'declare';
  const words = children.slice(1).filter((child) => child.isNamed);
  const flags = words.filter((word) => /^[-+]/.test(word.text)).map((word) => word.text.slice(1)).join('');
  for (const word of words) {
    if (/^[-+]/.test(word.text)) continue;
    const [name = '', value] = isAssignment(word.text) ? splitAssignment(word.text) : [word.text, undefined];
    const refusal =
      nameRefusal(builtin, name) ??
      promptVariableRefusal(name, value) ??
      (flags.includes('i') && value !== undefined ? arithmeticRefusal(`${builtin} -i ${name}`, value) : undefined) ??
      (flags.includes('n') && value !== undefined ? nameRefusal(`${builtin} -n ${name}`, value) : undefined);
    if (refusal) return refusal;
    if (flags.includes('i')) integerNames.add(name);
  }
  return undefined;
}

function splitAssignment(text: string): [string, string] {
  const at = text.indexOf('=');
  return [text.slice(0, text[at - 1] === '+' ? at - 1 : at), text.slice(at + 1)];
}

/** `let`, `test -v`, `printf -v`, `read`, `unset`, `wait -p`, `mapfile`: the builtins that evaluate arithmetic or a variable name given as a word; `enable -f` and `mapfile -C`, which run code the line does not show. */
function commandRefusal(words: string[]): string | undefined {
  const start = words.findIndex((word) => !isAssignment(word));
  let argv = words.slice(start < 0 ? words.length : start);
  while (argv[0] === 'command' || argv[0] === 'builtin') argv = argv.slice(1);
  const program = wordValue(argv[0] ?? '').value;
  const args = argv.slice(1);
  if (program === 'let') return args.map((arg) => arithmeticRefusal('let', wordValue(arg).value)).find(Boolean);
  if (program === 'test' || program === '[') {
    const at = args.indexOf('-v');
    return at >= 0 && args[at + 1] !== undefined ? nameRefusal('test -v', args[at + 1]!) : undefined;
  }
  if (program === 'printf') {
    // `-v NAME` or `-vNAME`, before the format (a `--` ends the options).
    const options = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined);
    const at = options.findIndex((arg) => arg.startsWith('-v'));
    if (at < 0) return undefined;
    const name = options[at] === '-v' ? args[at + 1] : options[at]!.slice(2);
    return name === undefined ? undefined : nameRefusal('printf -v', name);
  }
  if (program === 'read') {
    for (let at = 0; at < args.length; at++) {
      const arg = args[at]!;
      if (arg.startsWith('-') && arg.length > 1 && arg !== '--') {
        const letters = arg.slice(1);
        const valued = [...letters].findIndex((letter) => READ_VALUE_OPTIONS.has(letter) || letter === 'a');
        if (valued >= 0 && valued === letters.length - 1) {
          at++;
          if (letters.endsWith('a') && args[at] !== undefined) {
            const refusal = nameRefusal('read -a', args[at]!);
            if (refusal) return refusal;
          }
        }
        continue;
      }
      const refusal = arg === '--' ? undefined : nameRefusal('read', arg);
      if (refusal) return refusal;
    }
  }
  if (program === 'unset') return args.filter((arg) => !/^-[fvn]+$/.test(arg)).map((arg) => nameRefusal('unset', arg)).find(Boolean);
  if (program === 'wait') {
    const at = args.indexOf('-p');
    return at >= 0 && args[at + 1] !== undefined ? nameRefusal('wait -p', args[at + 1]!) : undefined;
  }
  if (program === 'enable' && args.some((arg) => /^-[a-z]*f/.test(arg))) {
    return 'enable -f loads a shared library into bash: code this line cannot show; run the program it provides instead';
  }
  if (program === 'mapfile' || program === 'readarray') {
    for (let at = 0; at < args.length; at++) {
      const arg = args[at]!;
      if (/^-[a-zA-Z]*C/.test(arg)) return `${program} -C runs its callback as code for each line it reads: code this line does not show; read the lines, then run the command`;
      if (arg.startsWith('-') && arg.length > 1 && arg !== '--') {
        if (MAPFILE_VALUE_OPTIONS.has(arg.at(-1)!)) at++;
        continue;
      }
      const refusal = arg === '--' ? undefined : nameRefusal(program, arg);
      if (refusal) return refusal;
    }
    return undefined;
  }
  if (DECLARATIONS.has(program)) {
    // `command declare "$x"=1`: the grammar reads it as a plain command.
    for (const arg of args) if (!/^[-+]/.test(arg)) {
      const refusal = nameRefusal(program, isAssignment(arg) ? splitAssignment(arg)[0] : arg);
      if (refusal) return refusal;
    }
  }
  return undefined;
}
