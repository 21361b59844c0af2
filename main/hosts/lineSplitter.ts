/** Turns a byte stream into lines for a logger, holding at most `maxLine` characters of a line. */
export function splitLines(onLine: (line: string) => void, maxLine = 8192): (chunk: Buffer | string) => void {
  let pending = '';
  return (chunk) => {
    pending += chunk.toString();
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      onLine(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    if (pending.length > maxLine) {
      onLine(`${pending.slice(0, maxLine)}…`);
      pending = '';
    }
  };
}
