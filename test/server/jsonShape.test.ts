import { describe, expect, it } from 'vitest';
import { jsonShape } from '../../main/server/jsonShape';

const shape = (value: unknown) => jsonShape(Buffer.from(JSON.stringify(value)));

describe('jsonShape', () => {
  it('counts values, nesting and the widest object without parsing', () => {
    expect(shape({ a: [1, 2, 3], b: { c: 1, d: 2, e: 3, f: 4 } })).toMatchObject({ cost: 6 + 6 + 2 + 1 + 6 + 3, depth: 2, widestObject: 4 });
  });

  it('skips strings whole, escaped quotes, backslashes and brackets inside them included', () => {
    const tricky = { text: 'a "quoted" [not, an, array] {nor: an, object} \\\\', after: [1, 2] };
    expect(shape(tricky)).toEqual({ cost: 6 + 1 + 6 + 1, depth: 2, widestObject: 2, bytesRead: JSON.stringify(tricky).length });
  });

  it('stops at the first limit it passes, so a flood is not read to its end', () => {
    const flood = Buffer.from(`{"items":[${'0,'.repeat(5_000_000)}0]}`);
    const look = jsonShape(flood, { cost: 1000, objectKeys: 100 });
    expect(look.cost).toBe(1001);
    // About two bytes a value: the look stopped a few kilobytes into a 10 MB body.
    expect(look.bytesRead).toBeLessThan(4 * 1001);
    const wide = Buffer.from(JSON.stringify(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`k${i}`, i]))));
    expect(jsonShape(wide, { cost: 1_000_000, objectKeys: 100 }).widestObject).toBe(101);
  });

  it('counts the keys of each object on its own', () => {
    expect(shape([{ a: 1, b: 2 }, { c: 1, d: 2, e: 3 }, [1, 2, 3, 4, 5, 6]]).widestObject).toBe(3);
  });
});
