import { describe, expect, it } from 'vitest';
import { GateError } from '../../shared/errors';
import { calculatorTool, evaluateArithmetic } from '../../main/tools/calculator';

/** The EVALIDATION an expression is refused with. */
function refused(expression: string): GateError {
  try {
    evaluateArithmetic(expression);
  } catch (error) {
    if (error instanceof GateError) return error;
    throw error;
  }
  throw new Error(`${expression} was not refused`);
}

describe('calculator: arithmetic', () => {
  it.each([
    ['2 + 2', 4],
    ['10 * (5 + 3)', 80],
    ['1 - 2 - 3', -4],
    ['12 / 4 / 3', 1],
    ['7 % 3', 1],
    ['-7 % 3', -1],
    ['2 + 3 * 4', 14],
    ['(2 + 3) * 4', 20],
    ['2 ^ 3 ^ 2', 512],
    ['2 ^ -1', 0.5],
    ['-2 ^ 2', -4],
    ['(-2) ^ 2', 4],
    ['--3', 3],
    ['+4', 4],
    ['2 * -3', -6],
    ['1.5e3', 1500],
    ['2.5E-1 * 4', 1],
    ['.5 + 5.', 5.5],
    ['0.1 + 0.2', 0.1 + 0.2],
    ['((((1))))', 1],
    ['  3\t*\n2  ', 6],
    ['-0 * 5', 0],
  ])('%s = %s', (expression, value) => {
    expect(evaluateArithmetic(expression)).toBe(value);
  });

  it('reads ** as ^ (a documented alias: it cannot mean anything else)', () => {
    expect(evaluateArithmetic('2**3')).toBe(8);
    expect(evaluateArithmetic('2 ** 3 ** 2')).toBe(512);
  });

  it('the tool returns the value and the expression as given', async () => {
    const input = calculatorTool.input.parse({ expression: '10 * 5' });
    expect(await calculatorTool.execute(input, { workspace: '/', dryRun: false, callId: 'c' })).toEqual({ value: 50, expression: '10 * 5' });
  });

  it('declares itself SAFE, pure, with no capability, effect or path', () => {
    expect(calculatorTool.manifest).toMatchObject({
      name: 'calculator',
      tier: 'SAFE',
      determinism: 'Pure',
      sideEffects: [],
      capabilities: [],
      pathArguments: [],
    });
  });
});

describe('calculator: refusals', () => {
  it.each(['sqrt(4)', 'process.exit()', 'constructor', 'Math.PI', 'x + 1', 'this', '__proto__', 'π * 2'])(
    '%s: names and calls are EVALIDATION naming the word',
    (expression) => {
      const error = refused(expression);
      expect(error.code).toBe('EVALIDATION');
      expect(error.message).toContain('calculator accepts numbers and + - * / % ^ ( ) only');
      const word = /^[\p{L}_]+/u.exec(expression.replace(/^[^\p{L}_]+/u, ''))![0];
      expect(error.message).toContain(`"${word}" is not allowed`);
    },
  );

  it('sqrt is refused with the exact message the issue asks for', () => {
    expect(refused('sqrt(16)').message).toBe('calculator accepts numbers and + - * / % ^ ( ) only; "sqrt" is not allowed');
  });

  it.each(['1; 2', '2 = 2', '[1]', '"1"', '`1`', '1, 2', '!1', '2 & 3', '0x10', '1_000'])('%s: other characters are refused', (expression) => {
    expect(refused(expression).code).toBe('EVALIDATION');
  });

  it('division and remainder by zero are EVALIDATION', () => {
    expect(refused('1 / 0').message).toContain('division by zero');
    expect(refused('5 % (2 - 2)').message).toContain('division by zero');
    expect(refused('1 / -0').message).toContain('division by zero');
  });

  it('results that are not finite numbers are EVALIDATION', () => {
    expect(refused('10 ^ 400').message).toContain('no finite result');
    expect(refused('0 ^ -1').message).toContain('no finite result');
    expect(refused('(-8) ^ (1/3)').message).toContain('no finite result');
  });

  it.each([
    ['', 'empty'],
    ['2 +', 'a number was expected'],
    ['(1 + 2', 'never closed'],
    ['1 + 2)', 'unmatched'],
    ['2 (3)', 'an operator was expected'],
    ['1e', 'is not a number'],
    ['1.2.3', 'is not a number'],
    ['* 2', 'a number was expected'],
  ])('malformed %j says what is wrong', (expression, why) => {
    const error = refused(expression);
    expect(error.code).toBe('EVALIDATION');
    expect(error.message).toContain(why);
  });

  it('refuses nesting past its limit instead of overflowing the stack', () => {
    expect(refused(`${'('.repeat(300)}1${')'.repeat(300)}`).message).toContain('nests deeper');
    expect(refused(`${'-'.repeat(300)}1`).message).toContain('nests deeper');
  });

  it('the input schema refuses a missing, empty or overlong expression', () => {
    expect(calculatorTool.input.safeParse({}).success).toBe(false);
    expect(calculatorTool.input.safeParse({ expression: '' }).success).toBe(false);
    expect(calculatorTool.input.safeParse({ expression: '1+'.repeat(600) + '1' }).success).toBe(false);
    expect(calculatorTool.input.safeParse({ expression: '1', extra: true }).success).toBe(false);
  });
});
