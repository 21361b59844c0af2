import { scriptOf } from './confusables';

/**
 * A passage in another language than the rest of a server's definitions: orders to the model hidden
 * in Chinese, Russian or French beside English descriptions are read by the model as well as the
 * English, and by a person who skims as foreign noise. No phrase list can cover every language, so
 * the signal is the shift itself, told by letters alone: a run of letters of another script, or, in
 * Latin script, a sentence written with letters (é, ß, ñ…) that the rest of the server never uses.
 */

/** Letters of a script other than the definitions' own past which a run is a passage, not a name: ideographs carry a word each. */
const PASSAGE_LETTERS: Readonly<Record<string, number>> = { Han: 4, Hiragana: 6, Katakana: 6, Hangul: 6 };
const PASSAGE_LETTERS_ALPHABETIC = 12;
/** Latin letters the rest of the definitions must hold before an unused letter means anything. */
const BASELINE_LETTERS = 40;
/** Words a sentence needs to count as a passage rather than a name. */
const MIN_SENTENCE_WORDS = 4;

/** The letters of each script in these texts. */
export function scriptCounts(texts: Iterable<string>): Map<string, number> {
  const counts = new Map<string, number>();
  for (const text of texts) {
    for (const char of text) {
      const script = scriptOf(char);
      if (script) counts.set(script, (counts.get(script) ?? 0) + 1);
    }
  }
  return counts;
}

/** The script most letters of the counts are in, or undefined when there are none. */
export function dominantScript(counts: ReadonlyMap<string, number>): string | undefined {
  let best: string | undefined;
  for (const [script, count] of counts) if (best === undefined || count > counts.get(best)!) best = script;
  return best;
}

/** A passage in another script or alphabet, where it is, and words for the person. */
export interface OtherLanguagePassage {
  start: number;
  end: number;
  message: string;
}

/**
 * The first run of a text in a script other than `dominant`, long enough to be a passage (at least
 * 4 ideographs or 12 letters, punctuation and spaces between them not counted): undefined when none.
 */
export function otherScriptPassage(text: string, dominant: string | undefined, whose: string): OtherLanguagePassage | undefined {
  if (!dominant || !/[^\x00-\x7f]/.test(text)) return undefined;
  let run: { script: string; start: number; end: number; letters: number } | undefined;
  let index = 0;
  for (const char of text) {
    const script = scriptOf(char);
    if (script) {
      if (run?.script !== script) run = { script, start: index, end: index, letters: 0 };
      run.letters++;
      run.end = index + char.length;
      if (script !== dominant && run.letters >= (PASSAGE_LETTERS[script] ?? PASSAGE_LETTERS_ALPHABETIC)) {
        const end = passageEnd(text, run.end, script);
        return {
          start: run.start,
          end,
          message: `holds a passage in ${scriptName(script)} script while the rest of ${whose} is in ${scriptName(dominant)}: text in another language can carry orders to the model past a person who reads the rest`,
        };
      }
    }
    index += char.length;
  }
  return undefined;
}

/** Where a run of a script goes on to (letters of that script with what stands between them). */
function passageEnd(text: string, from: number, script: string): number {
  let end = from;
  let index = from;
  for (const char of text.slice(from)) {
    index += char.length;
    const other = scriptOf(char);
    if (other === script) end = index;
    else if (other) break;
  }
  return end;
}

function scriptName(script: string): string {
  return script.replace(/_/g, ' ');
}

/** A Latin letter beyond ASCII (é, ß, ñ, ø…), lower-cased and composed, so é typed two ways counts once. */
function accentedLetters(text: string): string[] {
  return [...text.normalize('NFC').toLowerCase()].filter((char) => char > '\x7f' && scriptOf(char) === 'Latin');
}

function asciiLetterCount(text: string): number {
  return text.match(/[A-Za-z]/g)?.length ?? 0;
}

/**
 * Where a set of texts uses only the plain Latin alphabet (English), a sentence of one of them
 * written with a letter beyond it (é, ü, ñ, ß…) is in another language: French, German or Spanish
 * beside English descriptions, told without knowing any of those languages. A server whose texts
 * already use such letters has no plain alphabet to stand out from, and is left alone.
 */
export class AlphabetBaseline {
  private readonly accented: number;
  private readonly asciiLetters: number;

  constructor(texts: readonly string[]) {
    this.accented = texts.reduce((sum, text) => sum + accentedLetters(text).length, 0);
    this.asciiLetters = texts.reduce((sum, text) => sum + asciiLetterCount(text), 0);
  }

  /** The first such sentence of `text` (one of the texts), judged against all the others; `whose` names them for the person. */
  sentenceOutside(text: string, whose: string): OtherLanguagePassage | undefined {
    if (!/[^\x00-\x7f]/.test(text)) return undefined;
    const own = accentedLetters(text);
    // The rest must be plain Latin, and long enough for that to mean anything.
    if (this.accented > own.length || this.asciiLetters - asciiLetterCount(text) < BASELINE_LETTERS) return undefined;
    for (const sentence of text.matchAll(/[^.!?\u3002\uff01\uff1f\n]+/gu)) {
      const letters = accentedLetters(sentence[0]);
      // One such letter is enough (Spanish "envía", German "Schlüssel"), in a sentence, not a lone name.
      if (letters.length === 0 || sentence[0].trim().split(/\s+/).length < MIN_SENTENCE_WORDS) continue;
      return {
        start: sentence.index,
        end: sentence.index + sentence[0].length,
        message: `is written with letters (${[...new Set(letters)].join(', ')}) beyond the plain Latin alphabet of the rest of ${whose}: a passage in another language can carry orders to the model past a person who reads the rest`,
      };
    }
    return undefined;
  }
}
