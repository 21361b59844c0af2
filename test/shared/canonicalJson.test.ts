import { describe, expect, it } from 'vitest';
import { canonicalize, toWellFormed, toWellFormedJson } from '../../shared/canonicalJson';

/** A double from its IEEE 754 bit pattern, as RFC 8785 Appendix B lists them. */
function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

describe('canonicalize (RFC 8785)', () => {
  it('serializes the §3.2.2 sample with sorted keys, as §3.2.3 shows', () => {
    // Input of RFC 8785 §3.2.2, written as the values a parser yields.
    const parsed = JSON.parse(
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
        ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
        ' "literals": [null, true, false]}',
    );
    expect(canonicalize(parsed)).toBe(
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('sorts keys by UTF-16 code units, non-BMP keys by their surrogates (RFC 8785 §3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    expect(canonicalize(input)).toBe(
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  // RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical text.
  const appendixB: Array<[string, string]> = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  it.each(appendixB)('writes the double 0x%s as %s (RFC 8785 Appendix B)', (bits, text) => {
    expect(canonicalize(fromBits(bits))).toBe(text);
  });

  it('writes -0 as 0 and 1e-7 in exponent form (ECMA-262 Number::toString, adopted by RFC 8785 §3.2.2.3)', () => {
    expect(canonicalize([-0, 1e-7, 1e30, 4.5, 0.002])).toBe('[0,1e-7,1e+30,4.5,0.002]');
  });

  it('refuses NaN and the infinities, which have no JSON form (RFC 8785 §3.2.2.3)', () => {
    expect(() => canonicalize(Number.NaN)).toThrow(/NaN has no JSON form/);
    expect(() => canonicalize({ deep: [Infinity] })).toThrow(/\$\.deep\[0\]: Infinity/);
    expect(() => canonicalize(-Infinity)).toThrow(TypeError);
    // Appendix B: 7fffffffffffffff (NaN) and 7ff0000000000000 (Infinity) are errors.
    expect(() => canonicalize(fromBits('7fffffffffffffff'))).toThrow(TypeError);
    expect(() => canonicalize(fromBits('7ff0000000000000'))).toThrow(TypeError);
  });

  it('escapes only what §3.2.2.2 requires: controls as \\u00xx or short forms; U+2028 stays literal', () => {
    expect(canonicalize('\u000f\u0000\b\t\n\f\r"\\/')).toBe('"\\u000f\\u0000\\b\\t\\n\\f\\r\\"\\\\/"');
    expect(canonicalize('line\u2028para\u2029')).toBe('"line\u2028para\u2029"');
  });

  it('refuses a string or key holding a lone surrogate (I-JSON, RFC 8785 §3.1)', () => {
    expect(() => canonicalize('\ud800')).toThrow(/lone surrogate/);
    expect(() => canonicalize('a\udc00b')).toThrow(/lone surrogate/);
    expect(() => canonicalize({ ['\udbff']: 1 })).toThrow(/lone surrogate/);
    expect(canonicalize('\ud83d\ude00')).toBe('"😀"');
  });

  it('skips undefined members and writes undefined array items as null, like JSON.stringify', () => {
    expect(canonicalize({ b: undefined, a: 1 })).toBe('{"a":1}');
    expect(canonicalize([undefined, 1])).toBe('[null,1]');
  });

  it('gives the same text for the same JSON whatever the key order or nesting', () => {
    const one = { z: [1, { y: true, x: null }], a: 'text' };
    const other = { a: 'text', z: [1, { x: null, y: true }] };
    expect(canonicalize(one)).toBe(canonicalize(other));
    expect(JSON.parse(canonicalize(one))).toEqual(one);
  });

  it('refuses values that are not JSON: functions, bigints, class instances', () => {
    expect(() => canonicalize({ f: () => 1 })).toThrow(/function has no JSON form/);
    expect(() => canonicalize(1n)).toThrow(/bigint has no JSON form/);
    expect(() => canonicalize({ when: new Date(0) })).toThrow(/only plain objects/);
  });
});

describe('toWellFormed', () => {
  it('replaces lone surrogates with U+FFFD so the text can be canonicalized', () => {
    const repaired = toWellFormed('a\ud800b\udc00');
    expect(repaired).toBe('a\ufffdb\ufffd');
    expect(canonicalize(repaired)).toBe('"a\ufffdb\ufffd"');
    expect(toWellFormed('😀')).toBe('😀');
  });
});

describe('canonicalize takes the same text whichever way it writes', () => {
  it('orders members of objects nested in arrays, keeps key order by code units and skips undefined', () => {
    const value = { b: [{ z: 1, a: [true, null, undefined], m: { y: 'é', x: -0 } }], a: undefined, '\u00e9': 2, A: '\ud83d\ude00', _: 1e21 };
    expect(canonicalize(value)).toBe('{"A":"😀","_":1e+21,"b":[{"a":[true,null,null],"m":{"x":0,"y":"é"},"z":1}],"é":2}');
  });

  it('orders index-like keys by code units, not as the engine keeps them (10 before 9, ! before 1)', () => {
    expect(canonicalize({ 9: 'nine', 10: 'ten', '!': 'bang', 1: 'one' })).toBe('{"!":"bang","1":"one","10":"ten","9":"nine"}');
    expect(canonicalize([{ 2: 'b', 1: 'a', x: { 0: 0 } }])).toBe('[{"1":"a","2":"b","x":{"0":0}}]');
  });

  it('leaves the value it writes unchanged', () => {
    const value = { z: { d: 1, c: [{ f: 1, e: 2 }] }, a: 1 };
    const before = JSON.stringify(value);
    canonicalize(value);
    expect(JSON.stringify(value)).toBe(before);
  });

  it('is not misled by a toJSON added to Object.prototype', () => {
    const prototype = Object.prototype as { toJSON?: unknown };
    prototype.toJSON = () => 'hijacked';
    try {
      expect(canonicalize({ b: 1, a: { c: 2 } })).toBe('{"a":{"c":2},"b":1}');
    } finally {
      delete prototype.toJSON;
    }
  });

  it('names the place of a fault deep inside ordered data', () => {
    expect(() => canonicalize({ z: 1, a: [{ y: 2, x: [NaN] }] })).toThrow(/^\$\.a\[0\]\.x\[0\]: NaN has no JSON form$/);
    expect(() => canonicalize({ b: { a: 'ok', c: '\ud800' } })).toThrow(/^\$\.b\.c: string holds a lone surrogate$/);
  });
});

describe('toWellFormedJson', () => {
  it('hands back well-formed data as it is, and repairs a copy of the rest', () => {
    const clean = { a: [{ b: 'text' }], c: 1 };
    expect(toWellFormedJson(clean)).toBe(clean);
    const broken = { a: [{ b: 'x\ud800' }], c: 1, ['k\udc00']: 'v' };
    expect(toWellFormedJson(broken)).toEqual({ a: [{ b: 'x\ufffd' }], c: 1, ['k\ufffd']: 'v' });
    expect(broken.a[0]!.b).toBe('x\ud800');
  });
});
