// Every "N things" the console and the CLI print goes through here, so that no count reads "1 calls".
// Intl.PluralRules decides which form a count takes (it knows that 0 and 1.5 take the plural in
// English); English has no rule that derives a noun's plural reliably, so irregular ones are passed in.

const ENGLISH = new Intl.PluralRules('en-US');

/** The form of `noun` that `count` takes: "call" for 1, "calls" for 0 or 2 ("entries" when passed as `plural`). */
export function nounFor(count: number, noun: string, plural = `${noun}s`): string {
  return ENGLISH.select(count) === 'one' ? noun : plural;
}

/** How a counted noun is written. */
export interface CountOptions {
  /** The plural when it is not the noun with an s ("entries"). */
  plural?: string;
  /** Group the digits for a person reading ("1,204 calls"); off for text that scripts may parse. */
  grouped?: boolean;
}

/** The count followed by the noun in the form it takes: "1 call", "2 calls", "1,204 calls" when grouped. */
export function countOf(count: number, noun: string, options: CountOptions = {}): string {
  const number = options.grouped ? count.toLocaleString('en-US') : String(count);
  return `${number} ${nounFor(count, noun, options.plural)}`;
}
