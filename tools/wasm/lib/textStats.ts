// Counting shared by both sample tools, in the same terms as `wc`: lines end in \n, words are runs
// of non-space characters, characters are Unicode code points, bytes are UTF-8.

/** The counts of one text as JSON fields (no braces). */
export function statsFields(text: string): string {
  let lines = 0;
  let words = 0;
  let characters = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    // The second half of a surrogate pair is the same character.
    if (c < 0xdc00 || c > 0xdfff) characters++;
    if (c == 0x0a) lines++;
    const space = c == 0x20 || c == 0x0a || c == 0x0d || c == 0x09 || c == 0x0b || c == 0x0c;
    if (space) inWord = false;
    else if (!inWord) {
      inWord = true;
      words++;
    }
  }
  const bytes = String.UTF8.byteLength(text);
  return `"lines":${lines},"words":${words},"characters":${characters},"bytes":${bytes}`;
}
