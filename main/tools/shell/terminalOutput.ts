/**
 * What is kept of a command's output for the result: the newest bytes up to a cap (the end of a
 * build log is where the error is), as plain text for the agent (terminal control sequences out).
 */
import { escapeSequences } from '../../../shared/terminalEscapes';

/** The output as plain text: escape sequences removed, CRLF (a pty's line end) turned into LF. */
export function plainText(raw: string): string {
  return raw.replace(escapeSequences(), '').replace(/\r+\n/g, '\n');
}

/** Keeps the last `maxChars` characters of a stream and counts what fell off the front. */
export class OutputTail {
  private readonly parts: string[] = [];
  private kept = 0;
  /** Characters dropped from the front so far. */
  dropped = 0;

  constructor(private readonly maxChars: number) {}

  /** Adds a chunk, dropping the oldest text past the cap. */
  push(chunk: string): void {
    this.parts.push(chunk);
    this.kept += chunk.length;
    while (this.kept > this.maxChars && this.parts.length > 0) {
      const over = this.kept - this.maxChars;
      const first = this.parts[0]!;
      if (first.length <= over) {
        this.parts.shift();
        this.kept -= first.length;
        this.dropped += first.length;
      } else {
        this.parts[0] = first.slice(over);
        this.kept -= over;
        this.dropped += over;
      }
    }
  }

  /** Everything kept, oldest first. */
  text(): string {
    return this.parts.join('');
  }
}
