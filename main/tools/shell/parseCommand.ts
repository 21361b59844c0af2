import { createRequire } from 'node:module';
import type { Node, Parser } from 'web-tree-sitter';
import type { SubCommand } from '../../../shared/commandPreview';
import { GateError } from '../../../shared/errors';
import { CommandReader } from './commandReader';
import { hiddenCodeOf } from './hiddenCode';
import { programWords } from './programWords';
import { checkBraceWords, wordValue } from './shellWords';
import { unreadableReason } from './unreadableLine';

/**
 * Reads a shell command line with a real grammar (tree-sitter-bash, as WASM: it loads from
 * node_modules in plain Node, in the gate and in a sandboxed tool process alike) and lists every
 * simple command it would run, for the `command` preview a person approves.
 *
 * Choices, written down because the preview is what a person judges:
 * - Words are shown as written: quotes kept (`'a b'` is one word, shown with its quotes), expansions
 *   unexpanded (`$HOME`, `$(…)`).
 * - Prefix assignments (`PATH=. ls`) are listed first in argv, as written: they change what the
 *   program does, so the person must see them although the shell does not pass them as arguments.
 * - Commands inside `$(…)`, backticks and `<(…)`/`>(…)` run before the command that holds them, so
 *   they are listed before it, with `nested: true`. Commands in subshells and function bodies are
 *   listed in place, with `nested: true`.
 * - A newline between commands reads as `;`. `|&` is kept as written.
 * - Redirections on a compound command (`{ a; b; } > f`, `while …; done < f`) or on a function
 *   definition (`f() { a; } > f`, applied each time it is called) are shown on every command inside it.
 * - tree-sitter recovers from syntax errors; we do not: any error or missing token fails closed.
 *   Known gaps of the grammar (it refuses, so the call is denied): `<>`, two here-documents on one line,
 *   a redirection and then a pipe after a here-document (`cat <<EOF > f | wc`).
 */

/** One simple command of a command line, as the preview shows it. */
export type { SubCommand };

/** The longest command line read (a longer one is refused before parsing). */
export const MAX_COMMAND_CHARS = 64 * 1024;

const requireHere = createRequire(import.meta.url);
let loading: Promise<Parser> | undefined;
/** The parser once loaded, for parseNestedCommand. */
let loaded: Parser | undefined;

/** Loads the WASM runtime and the bash grammar once per process. */
function bashParser(): Promise<Parser> {
  loading ??= (async () => {
    // Imported here, not at the top: a tool process that never reads a command line does not load it.
    const { Parser, Language } = await import('web-tree-sitter');
    const runtime = requireHere.resolve('web-tree-sitter/tree-sitter.wasm');
    await Parser.init({ locateFile: () => runtime });
    const bash = await Language.load(requireHere.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
    const parser = new Parser();
    parser.setLanguage(bash);
    loaded = parser;
    return parser;
  })();
  // A failed load is not cached: the next call tries again.
  loading.catch(() => (loading = undefined));
  return loading;
}

/** Every simple command of `command`, in the order the shell runs them; throws EVALIDATION when it cannot be read. */
export async function parseCommand(command: string): Promise<SubCommand[]> {
  checkLength(command);
  let parser: Parser;
  try {
    parser = await bashParser();
  } catch (error) {
    throw new GateError('EVALIDATION', `the shell grammar could not be loaded (${(error as Error).message}); nothing was run`);
  }
  return readLine(parser, command);
}

/**
 * parseCommand for a line found inside another (the text of `sh -c '…'`), read while that line is
 * judged: the grammar is loaded by then. Throws EVALIDATION when it cannot be read, or when the
 * grammar was never loaded in this process.
 */
export function parseNestedCommand(command: string): SubCommand[] {
  checkLength(command);
  if (!loaded) throw new GateError('EVALIDATION', 'the shell grammar is not loaded; nothing was run');
  return readLine(loaded, command);
}

function checkLength(command: string): void {
  if (command.length > MAX_COMMAND_CHARS) {
    throw new GateError('EVALIDATION', `the command is longer than ${MAX_COMMAND_CHARS} characters; nothing was run`);
  }
  if (command.includes('\0')) throw new GateError('EVALIDATION', 'the command holds a NUL byte; nothing was run');
}

function readLine(parser: Parser, command: string): SubCommand[] {
  const tree = parser.parse(command);
  if (!tree) throw new GateError('EVALIDATION', 'the shell could not parse the command; nothing was run');
  try {
    const root = tree.rootNode;
    if (root.hasError) throw unparsable(command, root);
    const unreadable = unreadableReason(command, root);
    if (unreadable) throw new GateError('EVALIDATION', `the command is unreadable: ${unreadable}; nothing was run`, { command: excerpt(command) });
    const reader = new CommandReader();
    reader.sequence(root.children, false);
    checkBraceWords(reader.commands.flatMap((each) => [...each.argv, ...each.redirects.map((redirect) => redirect.target)]));
    const functions = functionBodies(root);
    for (const command of reader.commands) describeProgram(command, functions);
    return reader.commands;
  } finally {
    tree.delete();
  }
}

/** The functions the line defines, by name, with their bodies as written. */
function functionBodies(root: Node): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const definition of root.descendantsOfType('function_definition')) {
    const name = definition?.childForFieldName('name')?.text;
    const body = definition?.childForFieldName('body')?.text;
    if (name && body) bodies.set(name, body);
  }
  return bodies;
}

/** Adds the program bash runs (when written otherwise) and the code it runs that is not listed as commands. */
function describeProgram(command: SubCommand, functions: ReadonlyMap<string, string>): void {
  if (command.argv[0] === '[' || command.argv[0] === '[[' || command.argv[0] === '((') return;
  const words = programWords(command.argv);
  const program = words.argv[0];
  const writtenProgram = command.argv[words.prefixes.length];
  if (program !== undefined && (program !== writtenProgram || words.computedProgram)) command.program = program;
  command.runsCode = hiddenCodeOf(words);
  const decoded = command.argv.filter((word) => word.includes("$'")).map((word) => ({ written: word, value: wordValue(word).value }));
  if (decoded.length > 0) command.decodedWords = decoded;
  const body = program === undefined ? undefined : functions.get(program);
  if (body !== undefined) command.runsCode.push({ why: `calls the function ${program} defined on this line`, code: body });
}

function unparsable(command: string, root: Node): GateError {
  const culprit = firstError(root);
  const where = culprit
    ? ` near line ${culprit.startPosition.row + 1}, column ${culprit.startPosition.column + 1}` +
      (culprit.isMissing ? ` (a ${JSON.stringify(culprit.type)} is missing)` : ` at ${JSON.stringify(snippet(command, culprit.startIndex))}`)
    : '';
  return new GateError('EVALIDATION', `the shell could not parse the command${where}; nothing was run`, {
    command: excerpt(command),
  });
}

function excerpt(command: string): string {
  return command.length > 200 ? `${command.slice(0, 200)}…` : command;
}

function firstError(node: Node): Node | undefined {
  if (node.isError || node.isMissing) return node;
  for (const child of node.children) {
    if (child?.hasError || child?.isMissing) {
      const found = firstError(child);
      if (found) return found;
    }
  }
  return node.hasError ? node : undefined;
}

function snippet(text: string, at: number): string {
  const rest = text.slice(at, at + 40);
  return rest.length === 0 ? '<end of input>' : rest;
}
