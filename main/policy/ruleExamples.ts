import { z } from 'zod';
import type { RuleExamplesSchema } from '../../shared/policy';
import { callParts, prepareFacts } from './callParts';
import { judgedPathArguments, matcherKindOf, ruleManifest, SHELL_ARGUMENTS, type CompiledRule } from './compiledRule';
import { judgeCall } from './judgeCall';
import type { PolicyContext } from './policyFile';

/**
 * A rule's examples, checked when its file loads: each `match` must be matched by the rule and each
 * `notMatch` must not. An example is an arguments object, or the one argument the rule reads: a
 * command line for shell rules, a path for path rules, a URL for host rules.
 */

function exampleInput(rule: CompiledRule, example: unknown, context: PolicyContext): unknown {
  if (typeof example !== 'string') return example;
  const manifest = ruleManifest(context.tools, rule.tool)!;
  const kind = matcherKindOf(manifest);
  const argument =
    kind === 'shell' ? SHELL_ARGUMENTS[manifest.name] : kind === 'host' ? manifest.urlArguments?.[0] : kind === 'path' ? judgedPathArguments(manifest)[0] : undefined;
  return argument === undefined ? example : { [argument]: example };
}

/** Whether the rule, alone, decides this example call its way. */
export async function ruleMatchesExample(rule: CompiledRule, example: unknown, context: PolicyContext): Promise<boolean> {
  const manifest = ruleManifest(context.tools, rule.tool)!;
  const input = exampleInput(rule, example, context);
  const parts = callParts(manifest, input, await prepareFacts(manifest, input), context.anchors);
  const judged = judgeCall(manifest, parts, (tool) => (tool === rule.tool ? [rule] : []), context.anchors.workspace);
  return judged[rule.effect] !== undefined;
}

/** The first example that disagrees with the rule, described; undefined when all agree. */
export async function checkExamples(rule: CompiledRule, examples: z.infer<typeof RuleExamplesSchema> | undefined, context: PolicyContext): Promise<string | undefined> {
  for (const example of examples?.match ?? []) {
    if (!(await ruleMatchesExample(rule, example, context))) return `does not match its example ${JSON.stringify(example)}`;
  }
  for (const example of examples?.notMatch ?? []) {
    if (await ruleMatchesExample(rule, example, context)) return `matches ${JSON.stringify(example)}, which its examples say it must not`;
  }
  return undefined;
}
