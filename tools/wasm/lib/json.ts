// A small JSON reader and writer for the sample tools: the gate has already validated the input
// against the manifest's schema, so only a top-level object's string fields need reading.

/** The string value of `key` in the top-level JSON object, or null when absent or not a string. */
export function stringField(json: string, key: string): string | null {
  let at = skipSpace(json, 0);
  if (at >= json.length || json.charCodeAt(at) != 0x7b) return null;
  at = skipSpace(json, at + 1);
  while (at < json.length && json.charCodeAt(at) != 0x7d) {
    const name = readString(json, at);
    at = skipSpace(json, lastEnd);
    at = skipSpace(json, at + 1); // the colon
    if (json.charCodeAt(at) == 0x22) {
      const value = readString(json, at);
      if (name == key) return value;
      at = lastEnd;
    } else {
      at = skipValue(json, at);
    }
    at = skipSpace(json, at);
    if (at < json.length && json.charCodeAt(at) == 0x2c) at = skipSpace(json, at + 1);
  }
  return null;
}

/** Where the last string read ended (just past its closing quote). */
let lastEnd = 0;

function skipSpace(json: string, at: i32): i32 {
  while (at < json.length) {
    const c = json.charCodeAt(at);
    if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) break;
    at++;
  }
  return at;
}

function readString(json: string, at: i32): string {
  // The stub runtime never frees, so the value is built in one buffer, never by concatenation.
  const units = new StaticArray<u16>(json.length - at);
  let count = 0;
  let i = at + 1;
  while (i < json.length) {
    const c = json.charCodeAt(i);
    if (c == 0x22) break;
    if (c != 0x5c) {
      units[count++] = <u16>c;
      i++;
      continue;
    }
    const e = json.charCodeAt(i + 1);
    let unit = e;
    if (e == 0x6e) unit = 0x0a;
    else if (e == 0x74) unit = 0x09;
    else if (e == 0x72) unit = 0x0d;
    else if (e == 0x62) unit = 0x08;
    else if (e == 0x66) unit = 0x0c;
    else if (e == 0x75) {
      unit = <i32>parseInt(json.substring(i + 2, i + 6), 16);
      i += 4;
    }
    units[count++] = <u16>unit;
    i += 2;
  }
  lastEnd = i + 1;
  return String.UTF16.decodeUnsafe(changetype<usize>(units), <usize>count << 1);
}

function skipValue(json: string, at: i32): i32 {
  let depth = 0;
  while (at < json.length) {
    const c = json.charCodeAt(at);
    if (c == 0x22) {
      readString(json, at);
      at = lastEnd;
      if (depth == 0) return at;
      continue;
    }
    if (c == 0x7b || c == 0x5b) depth++;
    else if (c == 0x7d || c == 0x5d) {
      if (depth == 0) return at;
      depth--;
      if (depth == 0) return at + 1;
    } else if (depth == 0 && c == 0x2c) return at;
    at++;
  }
  return at;
}

/** A JSON string literal of `text`. */
export function quote(text: string): string {
  let out = '"';
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c == 0x22) out += '\\"';
    else if (c == 0x5c) out += '\\\\';
    else if (c < 0x20) out += '\\u' + c.toString(16).padStart(4, '0');
    else out += String.fromCharCode(c);
  }
  return out + '"';
}
