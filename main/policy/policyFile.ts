import { readFileSync } from 'node:fs';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { PolicyFileSchema, RULE_EFFECTS, type PolicyEntry, type PolicyProblem, type RuleSource } from '../../shared/policy';
import { compileRule, type CompiledRule, type ToolLookup } from './compiledRule';
import { checkExamples } from './ruleExamples';
import { parseRuleText, RuleError } from './ruleText';
import type { PathAnchors } from './pathRule';

/** Which tools a refused file could have allowed: every one, or those its entries name. */
export type RefusedScope = 'all' | ReadonlySet<string>;

/** A policy file as loaded: its compiled rules, or the problem that refused it whole. */
export type LoadedPolicyFile =
  | { readonly ok: true; readonly rules: readonly CompiledRule[]; readonly text?: string }
  | { readonly ok: false; readonly problem: PolicyProblem; readonly scope: RefusedScope; readonly text?: string };

/** What compiling a file's rules needs. */
export interface PolicyContext {
  readonly tools: ToolLookup;
  readonly anchors: PathAnchors;
}

const EXAMPLE_FILE = '{"allow": ["shell_exec(git status)"], "deny": [{"rule": "shell_exec(git push *)", "reason": "pushes need review"}]}';

function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf('\n'); at !== -1 && at < offset; at = text.indexOf('\n', at + 1)) line++;
  return line;
}

/** The tools a file's entries name, when every entry can be read that far. */
function scopeOf(raw: unknown): RefusedScope {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'all';
  // A misspelt list could have held anything.
  if (Object.keys(raw).some((key) => !(RULE_EFFECTS as readonly string[]).includes(key))) return 'all';
  const tools = new Set<string>();
  for (const effect of RULE_EFFECTS) {
    const list = (raw as Record<string, unknown>)[effect];
    if (list === undefined) continue;
    if (!Array.isArray(list)) return 'all';
    for (const entry of list) {
      const text = typeof entry === 'string' ? entry : typeof entry === 'object' && entry !== null ? (entry as { rule?: unknown }).rule : undefined;
      if (typeof text !== 'string') return 'all';
      try {
        tools.add(parseRuleText(text).tool);
      } catch {
        return 'all';
      }
    }
  }
  return tools;
}

/** Compiles the text of a policy file; any fault refuses it whole, naming the line and the fix. */
export async function compilePolicyText(text: string, file: string, layer: RuleSource['layer'], context: PolicyContext): Promise<LoadedPolicyFile> {
  const refuse = (problem: string, fix: string, offset?: number, scope: RefusedScope = 'all'): LoadedPolicyFile => ({
    ok: false,
    text,
    scope,
    problem: { layer, file, ...(offset !== undefined ? { line: lineOf(text, offset) } : {}), problem, fix },
  });
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length > 0 || !tree) {
    const first = errors[0];
    return refuse(`is not JSON (${first ? printParseErrorCode(first.error) : 'empty'})`, `write one JSON object, e.g. ${EXAMPLE_FILE}`, first?.offset ?? 0);
  }
  const raw = getNodeValue(tree) as unknown;
  const scope = scopeOf(raw);
  const parsed = PolicyFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.path.map((part) => (typeof part === 'number' ? part : String(part)));
    const node = findNodeAtLocation(tree, path) ?? tree;
    const unknownKey = issue.code === 'unrecognized_keys' ? ` (${issue.keys.join(', ')})` : '';
    return refuse(
      `${path.length > 0 ? `"${path.join('.')}" ` : ''}${issue.message.replace(/^Invalid input: /, '')}${unknownKey}`,
      `a policy file holds only "allow", "ask" and "deny" lists of rules: strings, or {"rule", "reason", "examples"}; e.g. ${EXAMPLE_FILE}`,
      node.offset,
      scope,
    );
  }
  const rules: CompiledRule[] = [];
  for (const effect of RULE_EFFECTS) {
    for (const [index, entry] of (parsed.data[effect] ?? []).entries()) {
      // An object entry is placed by its rule text, the line a person looks for.
      const node = (findNodeAtLocation(tree, typeof entry === 'string' ? [effect, index] : [effect, index, 'rule']) ?? findNodeAtLocation(tree, [effect, index])) as Node;
      const written = typeof entry === 'string' ? entry : entry.rule;
      const source: RuleSource = { layer, file, line: lineOf(text, node.offset) };
      try {
        const rule = await compileRule(written, effect, source, { ...context, ...reasonOf(entry) });
        const failing = await checkExamples(rule, typeof entry === 'string' ? undefined : entry.examples, context);
        if (failing) return refuse(`the rule ${JSON.stringify(written)} ${failing}`, 'change the rule or the example so that they agree', node.offset, scope);
        rules.push(rule);
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        return refuse(`the rule ${JSON.stringify(written)} is refused: ${error.message}`, error.fix, node.offset, scope);
      }
    }
  }
  return { ok: true, rules, text };
}

function reasonOf(entry: PolicyEntry): { reason?: string } {
  return typeof entry === 'object' && entry.reason ? { reason: entry.reason } : {};
}

/** Reads and compiles a policy file; a missing file is no rules, an unreadable one is refused. */
export async function loadPolicyFile(file: string, layer: RuleSource['layer'], context: PolicyContext): Promise<LoadedPolicyFile> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: true, rules: [] };
    return { ok: false, scope: 'all', problem: { layer, file, problem: `cannot be read (${code ?? (error as Error).message})`, fix: 'make it readable by you, or remove it' } };
  }
  return compilePolicyText(text, file, layer, context);
}
