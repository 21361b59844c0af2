import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { defineTool } from '../registry/defineTool';

/** Brackets and unary signs may nest this deep; deeper is refused rather than risking the stack. */
const MAX_NESTING = 200;
const MAX_EXPRESSION_CHARS = 1000;
const ALLOWED = 'calculator accepts numbers and + - * / % ^ ( ) only';

type Token = { kind: 'number'; value: number; at: number } | { kind: 'operator'; value: string; at: number };

/**
 * Evaluates an arithmetic expression with its own tokenizer and recursive-descent parser; nothing
 * is ever handed to eval or Function. Grammar, loosest binding first:
 *   sum     = product (('+' | '-') product)*
 *   product = unary (('*' | '/' | '%') unary)*
 *   unary   = ('-' | '+') unary | power
 *   power   = atom ('^' unary)?          right-associative; -2^2 is -(2^2)
 *   atom    = number | '(' sum ')'
 * `**` is read as `^`. `%` is JavaScript's remainder (it takes the sign of the left side).
 * Names (sqrt, constructor, process), function calls, commas and any other character are refused.
 */
export function evaluateArithmetic(expression: string): number {
  const parser = new Parser(expression, tokenize(expression));
  const value = parser.parseExpression();
  if (!Number.isFinite(value)) {
    throw new GateError('EVALIDATION', `${JSON.stringify(expression)} has no finite result (it overflows or is undefined)`);
  }
  return value === 0 ? 0 : value; // no -0 in the answer
}

/** A calculator for arithmetic: numbers, + - * / % ^ and parentheses. */
export const calculatorTool = defineTool({
  name: 'calculator',
  version: '1.0.0',
  description:
    'Evaluates an arithmetic expression: numbers (decimals and exponents like 1.5e3), + - * / % (remainder), ' +
    '^ or ** (power, right-associative), unary minus and parentheses. No names, functions or variables.',
  tier: 'SAFE',
  sideEffects: [],
  determinism: 'Pure',
  // No secrets: it returns its expression, and its errors quote it.
  secrets: 'refuse',
  capabilities: [],
  bounds: { timeoutMs: 5_000, maxMemoryMb: 256, maxOutputBytes: 4 * 1024 },
  pathArguments: [],
  input: z
    .object({
      expression: z.string().min(1).max(MAX_EXPRESSION_CHARS).describe('The arithmetic expression, e.g. 10 * (5 + 3)'),
    })
    .strict(),
  output: z.object({
    value: z.number().describe('The result'),
    expression: z.string().describe('The expression evaluated, as given'),
  }),
  execute: (input) => ({ value: evaluateArithmetic(input.expression), expression: input.expression }),
});

/** A number where the scan stands (sticky: however many digits it has, no slicing). */
const NUMBER = /(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;

/** Splits the expression into numbers and operators; anything else is refused by name. */
function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let index = 0;
  while (index < expression.length) {
    const char = expression[index]!;
    if (/\s/.test(char)) {
      index++;
      continue;
    }
    NUMBER.lastIndex = index;
    const number = NUMBER.exec(expression);
    if (number !== null) {
      if (/^[eE.\w]/.test(expression.slice(index + number[0].length))) {
        throw new GateError('EVALIDATION', `${ALLOWED}; ${JSON.stringify(malformedAt(expression, index))} is not a number`);
      }
      tokens.push({ kind: 'number', value: Number(number[0]), at: index });
      index += number[0].length;
      continue;
    }
    if (expression.startsWith('**', index)) {
      tokens.push({ kind: 'operator', value: '^', at: index });
      index += 2;
      continue;
    }
    if ('+-*/%^()'.includes(char)) {
      tokens.push({ kind: 'operator', value: char, at: index });
      index++;
      continue;
    }
    const name = /^[\p{L}_$][\p{L}\p{N}_$]*/u.exec(expression.slice(index, index + 100));
    const shown = name !== null ? name[0] : String.fromCodePoint(expression.codePointAt(index)!);
    throw new GateError('EVALIDATION', `${ALLOWED}; ${JSON.stringify(shown)} is not allowed`, { at: index });
  }
  return tokens;
}

/** The run of number-like characters at `index`, for a message about a malformed number. */
function malformedAt(expression: string, index: number): string {
  return /^[\w.]+(?:[eE][+-]?[\w.]*)?/.exec(expression.slice(index, index + 100))?.[0] ?? expression[index]!;
}

class Parser {
  private position = 0;
  private depth = 0;

  constructor(
    private readonly expression: string,
    private readonly tokens: Token[],
  ) {}

  parseExpression(): number {
    if (this.tokens.length === 0) throw this.fail('the expression is empty');
    const value = this.sum();
    const extra = this.tokens[this.position];
    if (extra !== undefined) {
      throw this.fail(extra.value === ')' ? `an unmatched ")" at ${extra.at + 1}` : `an operator was expected at ${extra.at + 1}`);
    }
    return value;
  }

  private sum(): number {
    let value = this.product();
    for (let token = this.peekOperator('+', '-'); token !== undefined; token = this.peekOperator('+', '-')) {
      this.position++;
      value = token === '+' ? value + this.product() : value - this.product();
    }
    return value;
  }

  private product(): number {
    let value = this.unary();
    for (let token = this.peekOperator('*', '/', '%'); token !== undefined; token = this.peekOperator('*', '/', '%')) {
      const at = this.tokens[this.position]!.at;
      this.position++;
      const right = this.unary();
      if (token === '*') {
        value *= right;
      } else {
        if (right === 0) throw this.fail(`division by zero at ${at + 1}`);
        value = token === '/' ? value / right : value % right;
      }
    }
    return value;
  }

  private unary(): number {
    const sign = this.peekOperator('+', '-');
    if (sign === undefined) return this.power();
    this.position++;
    return this.nested(() => (sign === '-' ? -this.unary() : this.unary()));
  }

  private power(): number {
    const base = this.atom();
    if (this.peekOperator('^') === undefined) return base;
    this.position++;
    return this.nested(() => base ** this.unary());
  }

  private atom(): number {
    const token = this.tokens[this.position];
    if (token === undefined) throw this.fail('it ends where a number was expected');
    if (token.kind === 'number') {
      this.position++;
      return token.value;
    }
    if (token.value !== '(') throw this.fail(`a number was expected at ${token.at + 1}, not "${token.value}"`);
    this.position++;
    const value = this.nested(() => this.sum());
    if (this.peekOperator(')') === undefined) throw this.fail(`the "(" at ${token.at + 1} is never closed`);
    this.position++;
    return value;
  }

  private nested(inner: () => number): number {
    if (++this.depth > MAX_NESTING) throw this.fail(`it nests deeper than ${MAX_NESTING} levels`);
    try {
      return inner();
    } finally {
      this.depth--;
    }
  }

  private peekOperator(...operators: string[]): string | undefined {
    const token = this.tokens[this.position];
    return token?.kind === 'operator' && operators.includes(token.value) ? token.value : undefined;
  }

  private fail(why: string): GateError {
    return new GateError('EVALIDATION', `${JSON.stringify(this.expression)} is not valid arithmetic: ${why}`);
  }
}
