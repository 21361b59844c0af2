import { distance } from 'fastest-levenshtein';

/**
 * The known name nearest to a misspelt one, when it is close enough to be what was meant (at most
 * two edits, or a third of the word's length for long words); case is ignored.
 */
export function nearestName(word: string, names: Iterable<string>): string | undefined {
  const lower = word.toLowerCase();
  let best: { name: string; edits: number } | undefined;
  for (const name of names) {
    const edits = distance(lower, name.toLowerCase());
    if (!best || edits < best.edits) best = { name, edits };
  }
  return best && best.edits <= Math.max(2, Math.floor(word.length / 3)) ? best.name : undefined;
}
