/**
 * The texts inside one argument that may name a file of their own, beside the argument itself: a
 * value glued into a short-option word, and a file named by a shared convention (`@file`, `file:`).
 * Pure string work; commandPaths places and judges what they name.
 */

/**
 * What a short-option word may carry glued as a value: the rest of the word after each of its letters
 * (`-sTkey` may be -s -T key), as any of its options may take one; not the first letter alone.
 */
export function gluedValues(word: string): string[] {
  const values: string[] = [];
  for (let at = 2; at < word.length; at++) if (word[at] !== '=' && word[at] !== '-') values.push(word.slice(at));
  return values;
}

/**
 * Files a word names in the conventions programs share for "the contents of this file": `@file` and
 * `<file` (curl's -d @key, -F f=@key or f=<key, --data-urlencode name@key; gcc and javac's @argfile),
 * and a file: URL (curl file:///etc/passwd). Each is judged as a path beside the word itself; a
 * `;type=…` curl adds after the name is cut off as well as kept.
 */
export function embeddedPaths(value: string): string[] {
  const named = new Set<string>();
  const add = (path: string) => {
    if (path === '' || path === '-') return;
    named.add(path);
    if (path.includes(';')) named.add(path.slice(0, path.indexOf(';')));
  };
  const url = /^file:(?:\/\/[^/]*)?(.*)$/is.exec(value);
  if (url) add(decodeURIComponentSafely(url[1]!));
  // @key or <key; name=@key or name=<key; name@key.
  for (const pattern of [/^[@<](.*)$/s, /^[^=]*=[@<](.*)$/s, /^[^=@/]+@(.*)$/s]) {
    const found = pattern.exec(value);
    if (found) add(found[1]!);
  }
  return [...named];
}

/** A URL's path with its %-escapes decoded, or as written when they are not valid escapes. */
function decodeURIComponentSafely(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
