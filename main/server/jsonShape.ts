/** Bodies up to this size are parsed without a look first: they cannot hold enough values or keys to hold up the gate. */
export const SCAN_ABOVE_BYTES = 64 * 1024;

/**
 * The most parse work a request body may cost, in values (an object or array counts CONTAINER_COST):
 * about 30 ms of JSON.parse, well past what any call's arguments may hold (200,000 values).
 */
export const MAX_PARSE_COST = 1_200_000;

/**
 * The most keys one object of a body may have. Keys are the dearest thing to parse (an object of
 * 100,000 keys takes JSON.parse 40 to 150 ms); twice what a call's arguments may hold per object.
 */
export const MAX_OBJECT_KEYS = 20_000;

/** What an object or array costs JSON.parse, relative to a number (measured: about six times as much). */
const CONTAINER_COST = 6;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_BRACKET = 0x5b;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACKET = 0x5d;
const CLOSE_BRACE = 0x7d;
/** Marks an array on the stack of open containers (objects hold their key count there). */
const ARRAY = -1;

/** What a look at a body found, before any parse. */
export interface JsonShape {
  /** About how much work JSON.parse would do, in values (past the limit, where the look stopped). */
  cost: number;
  /** How deep objects and arrays nest (as far as the look went). */
  depth: number;
  /** Keys of the widest object (as far as the look went). */
  widestObject: number;
  /** Bytes the look read before it stopped: the whole body's length, or less when a limit was passed. */
  bytesRead: number;
}

/**
 * About how much work JSON.parse would do on `body`, how deep it nests and how many keys its widest
 * object has, found without parsing it: a value per comma, CONTAINER_COST per object or array,
 * strings skipped whole (escapes included). Stops as soon as the cost or an object's keys pass their
 * limits, so a flood is never read to its end. Malformed text is left for JSON.parse to refuse.
 */
export function jsonShape(body: Buffer, limits: { cost: number; objectKeys: number } = { cost: MAX_PARSE_COST, objectKeys: MAX_OBJECT_KEYS }): JsonShape {
  let cost = 0;
  let deepest = 0;
  let widestObject = 0;
  const open: number[] = [];
  let index = 0;
  while (index < body.length && cost <= limits.cost && widestObject <= limits.objectKeys) {
    const byte = body[index]!;
    if (byte === QUOTE) {
      index = closingQuote(body, index + 1) + 1;
      continue;
    }
    if (byte === COMMA) {
      cost += 1;
      const top = open.length - 1;
      if (top >= 0 && open[top] !== ARRAY) {
        const keys = ++open[top]!;
        if (keys > widestObject) widestObject = keys;
      }
    } else if (byte === OPEN_BRACKET || byte === OPEN_BRACE) {
      cost += CONTAINER_COST;
      // An object's count starts at one key (commas separate the rest); an empty one is counted one too many, harmlessly.
      open.push(byte === OPEN_BRACE ? 1 : ARRAY);
      if (open.length > deepest) deepest = open.length;
    } else if (byte === CLOSE_BRACKET || byte === CLOSE_BRACE) {
      open.pop();
    }
    index++;
  }
  return { cost, depth: deepest, widestObject, bytesRead: Math.min(index, body.length) };
}

/** The index of the quote that ends a string starting at `from` (the body's length when none does). */
function closingQuote(body: Buffer, from: number): number {
  let search = from;
  for (;;) {
    const quote = body.indexOf(QUOTE, search);
    if (quote === -1) return body.length;
    let backslashes = 0;
    while (quote - backslashes - 1 >= from && body[quote - backslashes - 1] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote;
    search = quote + 1;
  }
}
