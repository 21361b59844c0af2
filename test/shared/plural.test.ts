import { describe, expect, it } from 'vitest';
import { countOf, nounFor } from '../../shared/plural';

describe('counted nouns', () => {
  it('takes the singular for exactly one and the plural for none, many and fractions', () => {
    expect([0, 1, 2, 1.5].map((count) => countOf(count, 'call'))).toEqual(['0 calls', '1 call', '2 calls', '1.5 calls']);
  });

  it('uses the plural it is given and groups digits only when asked', () => {
    expect(countOf(1, 'entry', { plural: 'entries' })).toBe('1 entry');
    expect(countOf(1204, 'entry', { plural: 'entries', grouped: true })).toBe('1,204 entries');
    expect(countOf(1204, 'record')).toBe('1204 records');
    expect(nounFor(1, 'is', 'are')).toBe('is');
  });
});
