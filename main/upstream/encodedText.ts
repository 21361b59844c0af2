/**
 * Text hidden in an encoding: a description that says "SWdub3JlIHByZXZpb3Vz…" shows a person noise
 * and a model an order, since models read base64 as easily as English. Each long run of an encoding
 * is found and decoded, so what it says can be checked like the rest.
 */

/** One run of encoded text, where it is, and the text it decodes to when that is readable. */
export interface EncodedRun {
  start: number;
  end: number;
  encoding: 'base64' | 'hex' | 'base32' | 'percent-encoding' | 'escape sequences';
  /** What it decodes to, when that is text (UTF-8, mostly printable); undefined for binary. */
  decoded: string | undefined;
}

/** Characters of base64 (standard or URL-safe) past which a run is read as base64: 18 bytes, "ignore instructions" fits. */
const MIN_BASE64 = 24;

/** The encodings looked for, each with its shape and decoder; a run is claimed by the first that matches it. */
const ENCODINGS: readonly {
  encoding: EncodedRun['encoding'];
  /** Tested once on the whole text: without it, the pattern cannot match, and is not run. */
  hint: RegExp;
  pattern: RegExp;
  accepts(run: string): boolean;
  decode(run: string): Uint8Array | string | undefined;
}[] = [
  {
    encoding: 'escape sequences',
    hint: /\\[ux]|&#/,
    pattern: /(?:\\u\{?[0-9a-fA-F]{2,6}\}?|\\x[0-9a-fA-F]{2}|&#x[0-9a-fA-F]{1,6};|&#[0-9]{1,7};){6,}/g,
    accepts: () => true,
    decode: (run) =>
      run.replace(/\\u\{?([0-9a-fA-F]{2,6})\}?|\\x([0-9a-fA-F]{2})|&#x([0-9a-fA-F]{1,6});|&#([0-9]{1,7});/g, (_, u, x, hex, dec) =>
        safeCodePoint(parseInt(u ?? x ?? hex ?? dec, dec ? 10 : 16)),
      ),
  },
  {
    encoding: 'percent-encoding',
    hint: /%[0-9a-fA-F]{2}/,
    // Bounded between escapes, so a long run of word characters is not walked again from each of its positions.
    pattern: /[A-Za-z0-9._~!*'()+-]{0,32}(?:%[0-9a-fA-F]{2}[A-Za-z0-9._~!*'()+-]{0,32}){6,}/g,
    accepts: () => true,
    decode: (run) => {
      try {
        return decodeURIComponent(run.replace(/\+/g, ' '));
      } catch {
        return undefined;
      }
    },
  },
  {
    encoding: 'hex',
    hint: /[0-9a-fA-F]{32}/,
    pattern: /(?<![0-9A-Za-z])(?:0x)?[0-9a-fA-F]{32,}(?![0-9A-Za-z])/g,
    accepts: (run) => run.replace(/^0x/, '').length % 2 === 0,
    decode: (run) => Buffer.from(run.replace(/^0x/, ''), 'hex'),
  },
  {
    encoding: 'base32',
    hint: /[A-Z2-7]{32}/,
    pattern: /(?<![0-9A-Za-z])[A-Z2-7]{32,}={0,6}(?![0-9A-Za-z=])/g,
    accepts: (run) => /[2-7]/.test(run) || run.endsWith('='),
    decode: base32Bytes,
  },
  {
    encoding: 'base64',
    hint: new RegExp(`[0-9A-Za-z+/_-]{${MIN_BASE64}}`),
    pattern: new RegExp(`(?<![0-9A-Za-z+/_-])[0-9A-Za-z+/_-]{${MIN_BASE64},}={0,2}(?![0-9A-Za-z+/=_-])`, 'g'),
    // Words, identifiers and paths are runs of these characters too: base64 of anything mixes cases and digits or symbols.
    accepts: (run) => /[a-z]/.test(run) && /[A-Z]/.test(run) && /[0-9+=]/.test(run) && !/[+/][_-]|[_-][+/]/.test(run),
    decode: (run) => Buffer.from(run.replace(/-/g, '+').replace(/_/g, '/'), 'base64'),
  },
];

/** Every run of encoded text, in order, none overlapping another. */
export function encodedRuns(text: string): EncodedRun[] {
  // A text of words and short tokens holds no run: one test skips the common case.
  if (!/[^\s]{24,}/.test(text)) return [];
  const runs: EncodedRun[] = [];
  const taken = (start: number, end: number) => runs.some((run) => start < run.end && end > run.start);
  for (const { encoding, hint, pattern, accepts, decode } of ENCODINGS) {
    if (!hint.test(text)) continue;
    for (const match of text.matchAll(pattern)) {
      const start = match.index;
      const end = start + match[0].length;
      if (taken(start, end) || !accepts(match[0])) continue;
      const bytes = decode(match[0]);
      runs.push({ start, end, encoding, decoded: bytes === undefined ? undefined : readable(bytes) });
    }
  }
  return runs.sort((a, b) => a.start - b.start);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Decoded bytes as text when they are UTF-8 that reads as text (letters, at most a tenth of other controls); else undefined. */
function readable(bytes: Uint8Array | string): string | undefined {
  let text: string;
  try {
    text = typeof bytes === 'string' ? bytes : utf8.decode(bytes);
  } catch {
    return undefined;
  }
  const letters = text.match(/\p{L}/gu)?.length ?? 0;
  const controls = text.match(/[\p{Cc}\p{Cn}\p{Co}\p{Cs}\ufffd]/gu)?.filter((char) => char !== '\n' && char !== '\t' && char !== '\r').length ?? 0;
  return letters >= 4 && letters * 2 >= [...text].length && controls * 10 <= text.length ? text : undefined;
}

function safeCodePoint(codePoint: number): string {
  return codePoint >= 0 && codePoint <= 0x10ffff && (codePoint < 0xd800 || codePoint > 0xdfff) ? String.fromCodePoint(codePoint) : '\ufffd';
}

/** RFC 4648 base32 (A–Z, 2–7), padding ignored. */
function base32Bytes(run: string): Uint8Array {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  const bytes: number[] = [];
  let bits = 0;
  let value = 0;
  for (const char of run.replace(/=+$/, '')) {
    value = (value << 5) | alphabet.indexOf(char);
    bits += 5;
    if (bits >= 8) {
      bytes.push((value >>> (bits - 8)) & 0xff);
      bits -= 8;
    }
  }
  return Uint8Array.from(bytes);
}
