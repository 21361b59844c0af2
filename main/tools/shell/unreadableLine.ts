import type { Node } from 'web-tree-sitter';
import { arithmeticRefusalIn } from './arithmeticContexts';

/**
 * Places where the grammar the prompt is built from and bash itself could read a line differently,
 * so that a person would approve one command and bash would run another. A line with any of them
 * is refused as unreadable (fail closed) instead of shown:
 * - a backslash-newline that bash removes before it splits words (`r\⏎m -rf x` runs `rm`), except
 *   between words (` \⏎`, the usual continuation), in single quotes, in a comment, and in the body of
 *   a here-document with a quoted delimiter (in those bash keeps it, as the grammar does);
 * - a backslash before a space or tab that the grammar skips as a blank between words, where bash
 *   makes the blank part of a word (`echo hi \ #; rm -rf ~`: the grammar sees a comment, bash runs rm);
 * - a carriage return, vertical tab or form feed outside quotes (a blank to the grammar, part of a
 *   word to bash);
 * - a here-document whose delimiter is not a plain word or one wholly quoted word (`E'O'F`, `E\⏎OF`),
 *   or whose end the grammar found elsewhere than bash does (a line that is the delimiter plus blanks);
 * - a reserved word the grammar took for a program name (`! { rm -rf x; }` read as the program `{`);
 * - arithmetic and variable-name contexts that could evaluate a `$(…)` hidden in a variable (see
 *   arithmeticContexts.ts).
 */

/** Nodes whose text bash keeps as written, backslash-newline included. */
const LITERAL_HOLDERS = new Set(['raw_string', 'comment']);
/** Nodes that are (part of) one word: a backslash-newline in them joins their pieces. */
const WORD_PARTS = new Set(['word', 'string', 'string_content', 'concatenation', 'ansi_c_string', 'translated_string', 'number', 'simple_expansion', 'expansion', 'heredoc_start', 'heredoc_end', 'variable_name', 'command_name', 'heredoc_body', 'file_descriptor']);
/** Quoted text: a carriage return, vertical tab or form feed in it is kept by bash as by the grammar. */
const QUOTED = new Set(['string', 'string_content', 'raw_string', 'ansi_c_string', 'translated_string', 'heredoc_body', 'comment']);
const BLANK_NAMES: Record<string, string> = { '\r': 'carriage return', '\v': 'vertical tab', '\f': 'form feed' };
/** A delimiter bash and the grammar agree on: a plain word, or one wholly in single or double quotes. */
const PLAIN_DELIMITER = /^(?:[A-Za-z0-9_.+\-]+|'[A-Za-z0-9_.+\-]+'|"[A-Za-z0-9_.+\-]+")$/;

/** Why bash could read `command` otherwise than its tree says, or undefined when they agree. */
export function unreadableReason(command: string, root: Node): string | undefined {
  return heredocRefusal(command, root) ?? continuationRefusal(command, root) ?? reservedWordRefusal(root) ?? arithmeticRefusalIn(root);
}

/** Words bash reads as syntax where a command starts; the grammar took one for a program name. */
const RESERVED_WORDS = new Set(['{', '}', '!', 'then', 'else', 'elif', 'fi', 'do', 'done', 'esac', 'in', 'function', 'case', 'if', 'while', 'until', 'for', 'select', '[[', ']]']);

function reservedWordRefusal(root: Node): string | undefined {
  for (const name of root.descendantsOfType('command_name')) {
    if (!name || !RESERVED_WORDS.has(name.text)) continue;
    return `the preview read the reserved word ${JSON.stringify(name.text)} as a program name (line ${name.startPosition.row + 1}), where bash reads it as syntax; write the group or keyword on its own, e.g. '! { a; }' as '{ a; }' followed by a test of $?`;
  }
  return undefined;
}

function lineOf(command: string, index: number): number {
  let line = 1;
  for (let at = command.indexOf('\n'); at >= 0 && at < index; at = command.indexOf('\n', at + 1)) line++;
  return line;
}

function continuationRefusal(command: string, root: Node): string | undefined {
  for (const match of command.matchAll(/\\[ \t\n]|[\r\v\f]/g)) {
    const at = match.index;
    const holder = root.descendantForIndex(at, at);
    if (!holder) continue;
    const line = lineOf(command, at);
    if (match[0].length === 1) {
      // bash splits words at spaces and tabs only; the grammar also at carriage returns, vertical tabs and form feeds.
      if (keptLiterally(holder) || QUOTED.has(holder.type) || holder.parent?.type === 'string') continue;
      return `line ${line} holds a ${BLANK_NAMES[match[0]]} outside quotes, which bash reads as part of a word and the preview as a blank; remove it (use plain newlines)`;
    }
    if (keptLiterally(holder)) continue;
    if (match[0] === '\\\n') {
      const between = (command[at - 1] === ' ' || command[at - 1] === '\t') && !WORD_PARTS.has(holder.type) && !WORD_PARTS.has(root.descendantForIndex(at + 1, at + 1)?.type ?? '');
      if (between) continue;
      return (
        `a backslash at the end of line ${line} joins two lines inside a word or string, which bash reads as one word ` +
        `and the preview could not; put that word on one line (a backslash-newline between words is fine)`
      );
    }
    // `a\ b` is one word for both; a backslash-blank the grammar skips between words (`echo hi \ #; rm x`) is a word for bash.
    if (WORD_PARTS.has(holder.type)) continue;
    return `a backslash before a blank on line ${line} stands outside any word the preview read, but bash makes the blank part of a word (so what follows, a # too, is read differently); quote the blank ('a b') instead`;
  }
  return undefined;
}

/** Whether bash keeps a backslash-newline at this node as written (single quotes, comments, quoted here-document bodies). */
function keptLiterally(node: Node): boolean {
  for (let current: Node | null = node; current; current = current.parent) {
    if (LITERAL_HOLDERS.has(current.type)) return true;
    if (current.type === 'heredoc_body') return /['"\\]/.test(current.parent?.namedChildren.find((child) => child?.type === 'heredoc_start')?.text ?? '');
  }
  return false;
}

function heredocRefusal(command: string, root: Node): string | undefined {
  for (const redirect of root.descendantsOfType('heredoc_redirect')) {
    if (!redirect) continue;
    const start = redirect.namedChildren.find((child) => child?.type === 'heredoc_start');
    const end = redirect.namedChildren.find((child) => child?.type === 'heredoc_end');
    const body = redirect.namedChildren.find((child) => child?.type === 'heredoc_body');
    const written = start?.text ?? '';
    if (!PLAIN_DELIMITER.test(written)) {
      return (
        `the here-document delimiter ${JSON.stringify(written)} is partly quoted or escaped, and bash and the preview could end the ` +
        `here-document at different lines; use a plain word (EOF) or quote all of it ('EOF')`
      );
    }
    const delimiter = written.replace(/^['"]|['"]$/g, '');
    const stripsTabs = redirect.children.some((child) => child?.type === '<<-');
    const isEndLine = (line: string) => (stripsTabs ? line.replace(/^\t+/, '') : line) === delimiter;
    const endLine = end ? wholeLine(command, end.startIndex) : undefined;
    if (!end || end.text !== delimiter || endLine === undefined || !isEndLine(endLine)) {
      return `the here-document ${JSON.stringify(written)} has no line that is exactly ${JSON.stringify(delimiter)} where bash would end it; end it with that line alone`;
    }
    // bash reads the body from the line after the one the here-document starts on, up to its end line.
    const bodyFrom = command.indexOf('\n', start!.endIndex) + 1;
    const bodyTo = command.lastIndexOf('\n', end.startIndex - 1) + 1;
    const read = body ? command.slice(body.startIndex, body.endIndex) : '';
    // `<<-` bodies lose their leading tabs, and the grammar leaves them out of the body it reads.
    const comparable = (text: string) => (stripsTabs ? text.replace(/^\t+/gm, '').replace(/\t+$/, '') : text);
    if (bodyFrom === 0 || bodyTo < bodyFrom || comparable(read) !== comparable(command.slice(bodyFrom, bodyTo))) {
      return (
        `the preview read the body of the here-document ${JSON.stringify(written)} elsewhere than bash does (a command continued ` +
        `past its start line?); end the start line there and begin the body on the next line`
      );
    }
    const bodyLines = command.slice(bodyFrom, bodyTo).split('\n').slice(0, -1);
    if (bodyLines.some(isEndLine)) {
      return `the here-document ${JSON.stringify(written)} holds its own end line earlier than the preview read it; end it with one line that is exactly ${JSON.stringify(delimiter)}`;
    }
  }
  return undefined;
}

/** The whole line of `command` that holds `index`. */
function wholeLine(command: string, index: number): string {
  const from = command.lastIndexOf('\n', index - 1) + 1;
  const to = command.indexOf('\n', index);
  return command.slice(from, to < 0 ? undefined : to);
}
