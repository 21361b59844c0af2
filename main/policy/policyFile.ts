import { readFileSync } from 'node:fs';
import { findNodeAtLocation, getNodeValue, parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { PolicyEntrySchema, PolicyFileSchema, RULE_EFFECTS, type PolicyEntry, type PolicyProblem, type RuleSource } from '../../shared/policy';
import { nearestName } from '../../shared/nearestName';
import { compileRule, type CompiledRule, type ToolLookup } from './compiledRule';
import { checkExamples } from './ruleExamples';
import { parseRuleText, RuleError } from './ruleText';
import type { PathAnchors } from './pathRule';

/** Which tools a refused file could have allowed: every one, or those its entries name. */
export type RefusedScope = 'all' | ReadonlySet<string>;

/** A policy file as loaded: its compiled rules, or every problem that refused it whole (at least one). */
export type LoadedPolicyFile =
  | { readonly ok: true; readonly rules: readonly CompiledRule[]; readonly text?: string }
  | { readonly ok: false; readonly problems: readonly PolicyProblem[]; readonly scope: RefusedScope; readonly text?: string };

/** What compiling a file's rules needs. */
export interface PolicyContext {
  readonly tools: ToolLookup;
  readonly anchors: PathAnchors;
}

const EXAMPLE_FILE = '{"allow": ["shell_exec(git status)"], "deny": [{"rule": "shell_exec(git push *)", "reason": "pushes need review"}]}';

/** The 1-based line and column of a character offset. */
function positionOf(text: string, offset: number): { line: number; column: number } {
  const before = text.slice(0, offset).split('\n');
  return { line: before.length, column: before.at(-1)!.length + 1 };
}

/** The keys a policy file and its object entries may hold, for "did you mean". */
const FILE_KEYS = RULE_EFFECTS;
const ENTRY_KEYS = ['rule', 'reason', 'examples'] as const;

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

/**
 * Compiles the text of a policy file. Any fault refuses it whole; every fault is listed (not only
 * the first), each at its line and column with the fix, and a misspelt key with the one it is near.
 */
export async function compilePolicyText(text: string, file: string, layer: RuleSource['layer'], context: PolicyContext): Promise<LoadedPolicyFile> {
  const problems: PolicyProblem[] = [];
  const problemAt = (problem: string, fix: string, offset?: number): void => {
    problems.push({ layer, file, ...(offset !== undefined ? positionOf(text, offset) : {}), problem, fix });
  };
  const errors: ParseError[] = [];
  const tree = parseTree(text, errors, { disallowComments: true, allowTrailingComma: false, allowEmptyContent: false });
  if (errors.length > 0 || !tree) {
    // Only the first: a syntax error's followers are mostly its echoes.
    const first = errors[0];
    problemAt(`is not JSON (${first ? printParseErrorCode(first.error) : 'empty'})`, `write one JSON object, e.g. ${EXAMPLE_FILE}`, first?.offset ?? 0);
    return { ok: false, text, scope: 'all', problems };
  }
  const raw = getNodeValue(tree) as unknown;
  const scope = scopeOf(raw);
  const parsed = PolicyFileSchema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map((part) => (typeof part === 'number' ? part : String(part)));
      const node = findNodeAtLocation(tree, path) ?? tree;
      if (issue.code === 'unrecognized_keys') {
        // Each unknown key at its own line (not the object's), with the known key it is near.
        const known: readonly string[] = path.length === 0 ? FILE_KEYS : ENTRY_KEYS;
        for (const key of issue.keys) {
          const near = nearestName(key, known);
          const where = findNodeAtLocation(tree, [...path, key])?.parent ?? node;
          problemAt(
            `${path.length > 0 ? `"${path.join('.')}" has ` : ''}the unknown key "${key}"`,
            `${near ? `did you mean "${near}"? ` : ''}${path.length === 0 ? 'a policy file holds only "allow", "ask" and "deny" lists' : 'a rule object holds only "rule", "reason" and "examples"'}; e.g. ${EXAMPLE_FILE}`,
            where.offset,
          );
        }
        continue;
      }
      problemAt(
        `${path.length > 0 ? `"${path.join('.')}" ` : ''}${issue.message.replace(/^Invalid input: /, '')}`,
        `a policy file holds only "allow", "ask" and "deny" lists of rules: strings, or {"rule", "reason", "examples"}; e.g. ${EXAMPLE_FILE}`,
        node.offset,
      );
    }
  }
  const rules: CompiledRule[] = [];
  // The rules are compiled even when the file's shape is refused, so that their faults are listed too.
  for (const effect of RULE_EFFECTS) {
    const list = (raw as Record<string, unknown> | null)?.[effect];
    if (!Array.isArray(list)) continue;
    for (const [index, item] of list.entries()) {
      const entry = PolicyEntrySchema.safeParse(item);
      if (!entry.success) continue;
      // An object entry is placed by its rule text, the line a person looks for.
      const node = (findNodeAtLocation(tree, typeof entry.data === 'string' ? [effect, index] : [effect, index, 'rule']) ?? findNodeAtLocation(tree, [effect, index])) as Node;
      const written = typeof entry.data === 'string' ? entry.data : entry.data.rule;
      const source: RuleSource = { layer, file, line: positionOf(text, node.offset).line };
      try {
        const rule = await compileRule(written, effect, source, { ...context, ...reasonOf(entry.data) });
        const failing = await checkExamples(rule, typeof entry.data === 'string' ? undefined : entry.data.examples, context);
        if (failing) problemAt(`the rule ${JSON.stringify(written)} ${failing}`, 'change the rule or the example so that they agree', node.offset);
        else rules.push(rule);
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        problemAt(`the rule ${JSON.stringify(written)} is refused: ${error.message}`, error.fix, node.offset);
      }
    }
  }
  if (problems.length > 0) return { ok: false, text, scope, problems };
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
    return { ok: false, scope: 'all', problems: [{ layer, file, problem: `cannot be read (${code ?? (error as Error).message})`, fix: 'make it readable by you, or remove it' }] };
  }
  return compilePolicyText(text, file, layer, context);
}
