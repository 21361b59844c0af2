import { TOOL_NAME_PATTERN, TOOL_NAME_RULE } from '../../shared/manifest';

/** A rule as written: `Tool` or `Tool(specifier)`. */
export interface RuleText {
  /** The whole rule as written, e.g. `shell_exec(git push *)`. */
  readonly text: string;
  /** The tool it names. */
  readonly tool: string;
  /** What is inside the parentheses; absent for a bare tool name (every call of it). */
  readonly specifier?: string;
}

/** A rule that cannot be read or compiled: what is wrong and how to write it instead. */
export class RuleError extends Error {
  constructor(
    message: string,
    readonly fix: string,
  ) {
    super(message);
    this.name = 'RuleError';
  }
}


/** Splits `Tool(specifier)` (Claude Code's permission-rule syntax); throws RuleError when it is not that shape. */
export function parseRuleText(text: string): RuleText {
  const trimmed = text.trim();
  const open = trimmed.indexOf('(');
  if (open === -1) {
    if (!TOOL_NAME_PATTERN.test(trimmed)) throw new RuleError(`${JSON.stringify(text)} is not a tool name`, 'write Tool or Tool(specifier), e.g. "read_file" or "shell_exec(git status)"');
    return { text: trimmed, tool: trimmed };
  }
  const tool = trimmed.slice(0, open);
  if (!TOOL_NAME_PATTERN.test(tool)) throw new RuleError(`${JSON.stringify(tool)} in ${JSON.stringify(text)} is not a tool name`, `${TOOL_NAME_RULE}, e.g. shell_exec(git status)`);
  if (!trimmed.endsWith(')')) throw new RuleError(`${JSON.stringify(text)} has no closing parenthesis`, `end it with ")", e.g. ${tool}(…)`);
  const specifier = trimmed.slice(open + 1, -1);
  if (specifier.trim() === '') throw new RuleError(`${JSON.stringify(text)} has empty parentheses`, `write the bare name ${tool} for every call, or put what it matches inside`);
  return { text: trimmed, tool, specifier };
}
