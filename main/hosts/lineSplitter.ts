import { StringDecoder } from 'node:string_decoder';

/**
 * Turns a byte stream into lines for a logger, holding at most `maxLine` characters of a line: the
 * rest of an overlong line is dropped, so a stream without newlines costs bounded memory.
 */
export function splitLines(onLine: (line: string) => void, maxLine = 8192): LineSplitter {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let cut = false;
  const push = (chunk: Buffer | string) => {
    pending += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      if (!cut) onLine(pending.slice(0, newline));
      cut = false;
      pending = pending.slice(newline + 1);
      newline = pending.indexOf('\n');
    }
    if (pending.length > maxLine) {
      if (!cut) onLine(`${pending.slice(0, maxLine)}… [line cut]`);
      cut = true;
      pending = '';
    }
  };
  return Object.assign(push, {
    end: () => {
      if (pending && !cut) onLine(pending);
      pending = '';
      cut = false;
    },
  });
}

/** Takes a stream's chunks; `end()` hands on the line left open (it ends where it stands). */
export interface LineSplitter {
  (chunk: Buffer | string): void;
  end(): void;
}
