import { posix } from 'node:path';
import picomatch from 'picomatch';
import { RuleError } from './ruleText';

/** One `argument=glob` of an upstream tool's rule. */
export interface ArgumentPair {
  /** The argument, a top-level name or a dotted path into nested objects (`options.branch`). */
  readonly argument: string;
  /** The glob as written. */
  readonly glob: string;
  /** Whether the glob matches every value (`*`, `**`): worth a second look in an allow. */
  readonly matchesAnything: boolean;
  test(value: string): boolean;
}

/** What an upstream tool's rule matches: every pair must match its argument. */
export interface ArgumentsPattern {
  readonly pairs: readonly ArgumentPair[];
}

const ARGUMENT = /^[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*$/;

/**
 * Compiles the specifier of an upstream tool's rule: `argument=glob` pairs separated by commas, e.g.
 * `github__create_issue(repo=acme/*, title=docs:*)`. A glob is matched like a path rule's
 * (picomatch, dot names included); a value holding a comma is written as a JSON string
 * (`title="a, b"`). Throws RuleError naming what is wrong and how to write it.
 */
export function compileArgumentsPattern(specifier: string): ArgumentsPattern {
  const pairs = splitPairs(specifier).map((written): ArgumentPair => {
    const equals = written.indexOf('=');
    if (equals <= 0) {
      throw new RuleError(`${JSON.stringify(written)} is not argument=glob`, 'an upstream tool\'s rule names its arguments, e.g. github__create_issue(repo=acme/*)');
    }
    const argument = written.slice(0, equals).trim();
    if (!ARGUMENT.test(argument)) {
      throw new RuleError(`${JSON.stringify(argument)} is not an argument name`, 'name a top-level argument, or a dotted path into one (options.branch)');
    }
    const glob = unquote(written.slice(equals + 1).trim());
    if (glob === '') throw new RuleError(`${argument}= has no value to match`, `write ${argument}=* to match any value, or the value itself`);
    const matcher = picomatch(glob, { dot: true });
    return { argument, glob, matchesAnything: glob === '*' || glob === '**', test: (value) => matcher(value) };
  });
  return { pairs };
}

/**
 * Whether every pair matches its argument's value (a string, number or boolean, as text); a missing
 * argument matches nothing. A list (`paths: [...]`) never meets an allow, so a crafted shape cannot
 * earn one. A deny or ask (the 'broad' reading) matches a list when any one of its values does, and
 * a string as written or with its `.` and `..` segments resolved (`a/./secrets/k` is `a/secrets/k` to
 * the server that opens it), so neither shape slips past one.
 */
export function argumentsMatch(pattern: ArgumentsPattern, args: Readonly<Record<string, unknown>>, reading: 'allow' | 'broad' = 'allow'): boolean {
  return pattern.pairs.every((pair) => {
    const value = valueAt(args, pair.argument);
    if (reading === 'allow') return scalarMatches(pair, value);
    const values = Array.isArray(value) ? (value as unknown[]) : [value];
    return values.some((item) => scalarMatches(pair, item) || (typeof item === 'string' && pair.test(posix.normalize(item))));
  });
}

function scalarMatches(pair: ArgumentPair, value: unknown): boolean {
  if (typeof value === 'string') return pair.test(value);
  if (typeof value === 'number' || typeof value === 'boolean') return pair.test(String(value));
  return false;
}

function valueAt(args: Readonly<Record<string, unknown>>, path: string): unknown {
  let value: unknown = args;
  for (const key of path.split('.')) {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** Splits at commas outside JSON strings. */
function splitPairs(specifier: string): string[] {
  const pairs: string[] = [];
  let current = '';
  let quoted = false;
  for (let index = 0; index < specifier.length; index++) {
    const char = specifier[index]!;
    if (quoted && char === '\\') {
      current += char + (specifier[index + 1] ?? '');
      index++;
      continue;
    }
    if (char === '"') quoted = !quoted;
    if (char === ',' && !quoted) {
      pairs.push(current.trim());
      current = '';
      continue;
    }
    current += char;
  }
  if (quoted) throw new RuleError(`${JSON.stringify(specifier)} has a quote that is never closed`, 'close the JSON string with "');
  pairs.push(current.trim());
  return pairs;
}

function unquote(glob: string): string {
  if (!glob.startsWith('"')) return glob;
  try {
    const value: unknown = JSON.parse(glob);
    if (typeof value === 'string') return value;
  } catch {
    // Falls through to the error below.
  }
  throw new RuleError(`${glob} is not a JSON string`, 'write a quoted value as a JSON string, e.g. title="a, b"');
}
