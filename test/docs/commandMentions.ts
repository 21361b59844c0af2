/**
 * The `toolgate …` command lines a doc shows, and what is wrong with one by the command specs the
 * CLI parses with: a command, subcommand or option it does not have.
 */
import type { CommandSpec } from '../../main/cli/commandSpec';

/** Words that end a command on a shell line: a comment, a pipe, a list operator, a redirection. */
const END = /^(#|\||\|\||&&|;|&|\d?>>?|<|\))/;

/** A shell line's words up to the end of its first command, quotes removed (enough for docs). */
function shellWords(text: string): string[] {
  const words: string[] = [];
  for (const match of text.matchAll(/'[^']*'|"(?:\\.|[^"\\])*"|\S+/g)) {
    const word = match[0];
    if (END.test(word)) break;
    words.push(word.replace(/^'(.*)'$/, '$1').replace(/^"(.*)"$/, '$1'));
  }
  return words;
}

/**
 * Every `toolgate` command line in a piece of code: `toolgate`, `npx toolgate` or
 * `…/bin/toolgate.js` where a command starts (the start, or after `|`, `&&`, `;`, `(`, `$ `),
 * with the words after it. `toolgate` elsewhere (a server's name, `~/.toolgate`) is not one.
 */
export function toolgateCommandLines(code: string): string[][] {
  const starts = /(?:^|[|;(]\s*|&&\s*|\$\s+)(?:npx\s+)?(?:toolgate|node\s+\S*bin\/toolgate\.js|\S*bin\/toolgate\.js)(?=\s|$)/g;
  return [...code.matchAll(starts)].map((match) => shellWords(code.slice(match.index + match[0].length)));
}

/**
 * A code span that names a command without `toolgate` in front (`servers review NAME --yes`,
 * `serve --sandbox off`): a command with subcommands and one of them, or `serve` and an option.
 * Its words, from the command on; undefined for any other span.
 */
export function shortCommandLine(span: string, specs: readonly CommandSpec[]): string[] | undefined {
  const words = shellWords(span);
  const spec = specs.find((candidate) => candidate.name === words[0]);
  if (!spec || words[1] === undefined) return undefined;
  const named = spec.subcommands ? spec.subcommands.some((sub) => sub.name === words[1]) : spec.name === 'serve' && words[1].startsWith('--');
  return named ? words : undefined;
}

/** An option word as the docs write it, `[--yes` or `--port=1`, as its name; undefined for a word that is no option. */
function optionName(word: string): string | undefined {
  const bare = word.replace(/^\[+/, '').replace(/[\]…]+$/, '').replace(/\.\.\.$/, '');
  return /^--?[A-Za-z]/.test(bare) ? bare.replace(/^--?/, '').replace(/=.*$/, '') : undefined;
}

/** What is wrong with one command line by the specs, or undefined when the CLI takes it. */
export function commandLineProblem(words: readonly string[], specs: readonly CommandSpec[]): string | undefined {
  const [first, ...rest] = words;
  if (first === undefined || first === '…' || first === '...') return undefined;
  if (first === '--version' || first === 'version' || first === '--help' || first === '-h') return undefined;
  if (first === 'help') return rest.length > 0 ? commandLineProblem([...rest.filter((word) => optionName(word) === undefined), '--help'], specs) : undefined;
  const spec = specs.find((candidate) => candidate.name === first);
  if (!spec) return `\`toolgate ${first}\`: there is no such command (${specs.map((candidate) => candidate.name).join(', ')})`;
  let command = spec;
  let path = spec.name;
  let afterCommand = rest;
  // A word that follows an option taking a value is that value (`tools --format openai`), not a subcommand.
  const takesValue = (word: string | undefined) => (spec.options ?? []).some((option) => option.value !== undefined && option.name === optionName(word ?? ''));
  const subWord = rest.find((word, index) => optionName(word) === undefined && !(takesValue(rest[index - 1]) && !rest[index - 1]!.includes('=')));
  if (spec.subcommands && subWord !== undefined && !/^[A-Z<[…]/.test(subWord)) {
    const sub = spec.subcommands.find((candidate) => candidate.name === subWord);
    if (!sub) return `\`toolgate ${spec.name} ${subWord}\`: ${spec.name} has no subcommand ${subWord} (${spec.subcommands.map((candidate) => candidate.name).join(', ')})`;
    command = sub;
    path = `${spec.name} ${sub.name}`;
    afterCommand = rest.filter((word) => word !== subWord);
  }
  for (const word of afterCommand) {
    const name = optionName(word);
    if (name === undefined || name === 'help' || name === 'h') continue;
    if (!(command.options ?? []).some((option) => option.name === name)) {
      return `\`toolgate ${path}\` has no option --${name} (it takes ${(command.options ?? []).map((option) => `--${option.name}`).join(', ') || 'none'})`;
    }
  }
  return undefined;
}
