/**
 * The spellings a secret's value can take in a tool's output. A tool (or a shell command a person
 * approved) can hand a value back encoded, deliberately or not: inside JSON text, in an HTTP Basic
 * header, hex-dumped, or in a URL. Each spelling here is redacted like the value itself.
 */

/** Encoded forms shorter than this are not looked for: so few characters would match ordinary text. */
const MIN_FORM_LENGTH = 6;

/** Every distinct spelling of `value` worth redacting, the raw value first. */
export function secretForms(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const json = JSON.stringify(value).slice(1, -1);
  const base64 = base64Cores(bytes);
  const hex = bytes.toString('hex');
  const uriComponent = encodeURIComponent(value);
  const forms = [
    value,
    json,
    // JSON text inside a JSON string (a tool that returns a JSON document as a string field).
    JSON.stringify(json).slice(1, -1),
    ...base64,
    ...base64.map(toBase64Url),
    hex,
    hex.toUpperCase(),
    uriComponent,
    // Some encoders write percent escapes in lower case (%2f); form bodies write a space as +.
    uriComponent.replace(/%[0-9A-F]{2}/g, (escape) => escape.toLowerCase()),
    new URLSearchParams({ v: value }).toString().slice(2),
  ];
  return [...new Set(forms)].filter((form) => form === value || form.length >= MIN_FORM_LENGTH);
}

/**
 * The base64 characters that depend on the value's bytes alone, for each of the three places the
 * value can start in a base64 group (`user:TOKEN` in a Basic header starts it one byte in). The
 * characters at either end that share bits with neighbouring bytes are left out, so the core is
 * found whatever surrounds the value.
 */
function base64Cores(bytes: Buffer): string[] {
  return [0, 1, 2].map((offset) => {
    const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
    const firstWhole = Math.ceil((offset * 8) / 6);
    const lastWhole = Math.floor(((offset + bytes.length) * 8) / 6);
    return encoded.slice(firstWhole, lastWhole);
  });
}

function toBase64Url(base64: string): string {
  return base64.replace(/\+/g, '-').replace(/\//g, '_');
}
