/**
 * What a sed script does beyond editing its input, read as GNU sed reads it: the files its `r`, `R`
 * (read) and `w`, `W`, `s///w` (write) commands name, and whether it runs commands (`e`, `s///e`).
 * A script it cannot read to the end (a command GNU sed does not have, a regex left open) is
 * `unreadable`: it may do any of these. With --sandbox, GNU sed refuses all three. No sed script library exists for Node; this reader only
 * walks the command structure (addresses, blocks, the text of a, i, c, the parts of s and y), which
 * is all that places those file names.
 */

/** What one script does besides editing. */
export interface SedEffects {
  readonly reads: string[];
  readonly writes: string[];
  /** The command lines its `e COMMAND` commands run through the shell. */
  readonly commands: string[];
  /** Why it runs commands only known when it runs (`e` alone, `s///e`: the pattern space), if it does. */
  readonly runsInput?: string;
  /** Why it could not be read to the end, if it could not. */
  readonly unreadable?: string;
}

/** Commands that take no argument. */
const BARE = new Set(['=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F']);
/** Commands that take an optional number (l, q, Q, L) or version (v) up to the end of the command. */
const NUMBERED = new Set(['l', 'L', 'q', 'Q', 'v']);
/** Files sed writes to without opening them by name. */
const SPECIAL_OUTPUTS = new Set(['/dev/stdout', '/dev/stderr']);

class Unreadable extends Error {}

/** Reads one script (an -e value, or the script operand; -e values joined by newlines read the same). */
export function sedEffects(script: string): SedEffects {
  const reads: string[] = [];
  const writes: string[] = [];
  const commands: string[] = [];
  let runsInput: string | undefined;
  let at = 0;
  const peek = () => script[at];
  const skip = (chars: RegExp) => {
    while (at < script.length && chars.test(script[at]!)) at++;
  };
  /** The rest of the line (a file name, the text of a, i, c, e), from past the spaces after the command. */
  const restOfLine = (): string => {
    skip(/[ \t]/);
    const end = script.indexOf('\n', at);
    const text = script.slice(at, end < 0 ? script.length : end);
    at = end < 0 ? script.length : end + 1;
    return text;
  };
  /** Past a delimited part (a regex or a replacement) ending at `delimiter`, escapes included. */
  const delimited = (delimiter: string): void => {
    for (; at < script.length; at++) {
      const char = script[at]!;
      if (char === '\\') at++;
      else if (char === delimiter) {
        at++;
        return;
      } else if (char === '\n' && delimiter !== '\n') break;
    }
    throw new Unreadable(`a part delimited by ${JSON.stringify(delimiter)} is not closed`);
  };
  const address = (): void => {
    const char = peek();
    if (char === undefined) return;
    if (/\d/.test(char)) {
      skip(/\d/);
      if (peek() === '~') {
        at++;
        skip(/\d/);
      }
    } else if (char === '$') at++;
    else if (char === '/' || char === '\\') {
      const delimiter = char === '/' ? '/' : script[at + 1];
      if (delimiter === undefined) throw new Unreadable('an address ends the script');
      at += char === '/' ? 1 : 2;
      delimited(delimiter);
      skip(/[IM]/);
    }
  };
  try {
    while (at < script.length) {
      skip(/[\s;]/);
      if (at >= script.length) break;
      if (peek() === '#') {
        restOfLine();
        continue;
      }
      address();
      skip(/[ \t]/);
      if (peek() === ',') {
        at++;
        skip(/[ \t]/);
        if (peek() === '+' || peek() === '~') {
          at++;
          skip(/\d/);
        } else address();
      }
      skip(/[ \t]/);
      while (peek() === '!') {
        at++;
        skip(/[ \t]/);
      }
      const command = script[at++];
      if (command === undefined) throw new Unreadable('an address has no command');
      if (command === '{' || command === '}' || BARE.has(command)) continue;
      if (NUMBERED.has(command) || command === ':' || command === 'b' || command === 't' || command === 'T') {
        // A label or a number runs to the end of the command (a `;` or the line's end; a label to the line's end).
        const end = command === ':' ? /\n/ : /[;\n}]/;
        while (at < script.length && !end.test(script[at]!)) at++;
        continue;
      }
      if (command === 'a' || command === 'i' || command === 'c') {
        // The text runs to the line's end; a backslash at its end carries it on to the next line.
        let line = restOfLine();
        while (line.endsWith('\\') && at < script.length) line = restOfLine();
        continue;
      }
      if (command === 'r' || command === 'R') {
        reads.push(restOfLine());
        continue;
      }
      if (command === 'w' || command === 'W') {
        const file = restOfLine();
        if (!SPECIAL_OUTPUTS.has(file)) writes.push(file);
        continue;
      }
      if (command === 'e') {
        const line = restOfLine();
        if (line.trim() === '') runsInput ??= 'its e command runs the pattern space (its input) through the shell';
        else commands.push(line);
        continue;
      }
      if (command === 's' || command === 'y') {
        const delimiter = script[at++];
        if (delimiter === undefined || delimiter === '\n' || delimiter === '\\') throw new Unreadable(`${command} has no delimiter`);
        delimited(delimiter);
        delimited(delimiter);
        if (command === 'y') continue;
        // Flags: g, p, i, I, m, M, e, a number, then w FILE to the line's end.
        for (;;) {
          const flag = peek();
          if (flag === undefined || /[;\n}\s]/.test(flag)) break;
          at++;
          if (flag === 'e') runsInput ??= 'its s///e runs the pattern space (its input) through the shell';
          else if (flag === 'w') {
            const file = restOfLine();
            if (!SPECIAL_OUTPUTS.has(file)) writes.push(file);
            break;
          } else if (!/[gpiImM\d]/.test(flag)) throw new Unreadable(`s has a flag ${JSON.stringify(flag)} sed does not know`);
        }
        continue;
      }
      throw new Unreadable(`${JSON.stringify(command)} is not a sed command`);
    }
  } catch (error) {
    if (!(error instanceof Unreadable)) throw error;
    return { reads, writes, commands, ...(runsInput ? { runsInput } : {}), unreadable: `its script cannot be read to the end (${error.message}), so it may read, write or run anything` };
  }
  return { reads, writes, commands, ...(runsInput ? { runsInput } : {}) };
}

/** A sed command line's scripts as written (its -e and --expression values, else its first operand), a script file, and whether --sandbox holds it. */
export function sedScripts<Word extends { value: string }>(args: readonly Word[]): { scripts: Word[]; file?: Word; sandboxed: boolean } {
  const scripts: Word[] = [];
  let file: Word | undefined;
  let sandboxed = false;
  let firstOperand: Word | undefined;
  const valueOf = (glued: string, at: number, arg: Word): { word: Word | undefined; skip: number } =>
    glued !== '' ? { word: { ...arg, value: glued, raw: glued } as Word, skip: 0 } : { word: args[at + 1], skip: 1 };
  let ended = false;
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    const { value } = arg;
    if (ended || !value.startsWith('-') || value === '-') {
      firstOperand ??= arg;
      continue;
    }
    if (value === '--') {
      ended = true;
      continue;
    }
    if (value.startsWith('--')) {
      const [name = '', ...rest] = value.slice(2).split('=');
      const glued = rest.join('=');
      // GNU getopt takes any unique prefix (`--e=` is --expression); `--s` is ambiguous, and sed refuses it.
      const takes = (option: string) => name.length >= (option === 'sandbox' ? 2 : 1) && option.startsWith(name);
      if (takes('sandbox')) sandboxed = true;
      else if (takes('expression') || takes('file')) {
        const { word, skip } = valueOf(rest.length > 0 ? glued : '', at, arg);
        at += rest.length > 0 ? 0 : skip;
        if (word) (takes('expression') ? scripts.push(word) : (file = word));
      } else if (takes('line-length') && rest.length === 0) at++;
      continue;
    }
    const letters = value.slice(1);
    for (let index = 0; index < letters.length; index++) {
      const letter = letters[index]!;
      if (letter === 'i') break; // -i[SUFFIX]: the rest is the suffix
      if (letter === 'e' || letter === 'f' || letter === 'l') {
        const { word, skip } = valueOf(letters.slice(index + 1), at, arg);
        at += skip;
        if (word && letter === 'e') scripts.push(word);
        else if (word && letter === 'f') file = word;
        break;
      }
    }
  }
  if (scripts.length === 0 && file === undefined && firstOperand) scripts.push(firstOperand);
  return { scripts, ...(file ? { file } : {}), sandboxed };
}
