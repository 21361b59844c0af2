/**
 * The spellings a secret's value can take in a tool's output. A tool (or a shell command a person
 * approved) can hand a value back encoded, deliberately or not: inside JSON text, in an HTTP Basic
 * header, hex-dumped, percent-encoded byte by byte, in base32, or in a URL. Each spelling here is
 * redacted like the value itself, in any letter case (the Redactor matches case-insensitively, so
 * an upper-cased, lower-cased or swapped-case value or encoding is the same needle).
 */

/** Encoded forms shorter than this are not looked for: so few characters would match ordinary text. */
const MIN_FORM_LENGTH = 6;

/** RFC 4648 §6 (base32) and §7 (base32hex) alphabets. */
const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
const BASE32_HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';

/** Every distinct spelling of `value` worth redacting, the raw value first. */
export function secretForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const json = JSON.stringify(value).slice(1, -1);
  const base64 = encodedCores(bytes, 6, (padded) => padded.toString('base64'));
  const hex = bytes.toString('hex');
  const uriComponent = encodeURIComponent(value);
  const forms = [
    value,
    json,
    // JSON text inside a JSON string (a tool that returns a JSON document as a string field).
    JSON.stringify(json).slice(1, -1),
    ...base64,
    ...base64.map(toBase64Url),
    ...encodedCores(bytes, 5, (padded) => base32(padded, BASE32)),
    ...encodedCores(bytes, 5, (padded) => base32(padded, BASE32_HEX)),
    hex,
    uriComponent,
    // Every byte escaped, letters and digits too (`%73%6B`): what `xxd -p | sed 's/../%&/g'` writes.
    hex.replace(/../g, '%$&'),
    // Form bodies write a space as +.
    new URLSearchParams({ v: value }).toString().slice(2),
  ];
  return [...new Set(forms.map(foldCase))].filter((form) => form === foldCase(value) || form.length >= MIN_FORM_LENGTH);
}

/**
 * `text` with each letter in lower case, keeping its length and every character's position (a
 * letter whose lower case is longer, like İ, stays as it is): the key redaction compares by, so
 * spans found in the folded text are spans of the original.
 */
export function foldCase(text: string): string {
  const lower = text.toLowerCase();
  // Lower-casing never shortens a character, so an unchanged length means every one kept its place.
  if (lower.length === text.length) return lower;
  let folded = '';
  for (const char of text) {
    const one = char.toLowerCase();
    folded += one.length === char.length ? one : char;
  }
  return folded;
}

/**
 * The characters of an encoding (`bitsPerChar` bits each) that depend on the value's bytes alone,
 * for each place the value can start in an encoding group (`user:TOKEN` in a Basic header starts it
 * one byte in). The characters at either end that share bits with neighbouring bytes are left out,
 * so the core is found whatever surrounds the value, padded or not.
 */
function encodedCores(bytes: Buffer, bitsPerChar: 5 | 6, encode: (padded: Buffer) => string): string[] {
  const groupBytes = bitsPerChar === 6 ? 3 : 5;
  return Array.from({ length: groupBytes }, (_, offset) => {
    const encoded = encode(Buffer.concat([Buffer.alloc(offset), bytes]));
    const firstWhole = Math.ceil((offset * 8) / bitsPerChar);
    const lastWhole = Math.floor(((offset + bytes.length) * 8) / bitsPerChar);
    return encoded.slice(firstWhole, lastWhole);
  });
}

/**
 * RFC 4648 base32 without padding. Written here because Node has no base32 and no dependency of
 * the project offers one; only encoding is needed, and the cores above never reach the padding.
 */
function base32(bytes: Buffer, alphabet: string): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = ((buffer << 8) | byte) & 0xffff;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += alphabet[(buffer >> bits) & 31];
    }
  }
  if (bits > 0) out += alphabet[(buffer << (5 - bits)) & 31];
  return out;
}

function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}
