import type { z } from 'zod';
import { deepFreeze } from '../../registry/defineTool';
import type { RegisteredTool } from '../../registry/registry';
import { StepFailure } from './stepFailure';

const MAX_ISSUES = 5;

/** Says where a schema failed and what it expected, in words a model can act on. */
export function describeIssues(issues: readonly z.core.$ZodIssue[]): { message: string; fields: unknown[] } {
  const shown = issues.slice(0, MAX_ISSUES).map((issue) => ({
    field: issue.path.length > 0 ? issue.path.map(String).join('.') : '(arguments)',
    problem: issue.message,
  }));
  const more = issues.length > MAX_ISSUES ? ` (and ${issues.length - MAX_ISSUES} more)` : '';
  return { message: shown.map((item) => `${item.field}: ${item.problem}`).join('; ') + more, fields: shown };
}

/** Checks the arguments against the tool's input schema; the result is frozen so it cannot change later. */
export function validateInput(entry: RegisteredTool, args: unknown): unknown | StepFailure {
  if (entry.external) {
    // An upstream tool's arguments are checked against its server's own JSON Schema.
    const problem = entry.external.validate(args);
    if (problem === undefined) return deepFreeze(args);
    return StepFailure.of('validate', 'EVALIDATION', `invalid arguments for ${entry.tool.manifest.name}: ${problem}`);
  }
  const parsed = entry.tool.input.safeParse(args);
  if (parsed.success) return deepFreeze(parsed.data);
  const { message, fields } = describeIssues(parsed.error.issues);
  return StepFailure.of('validate', 'EVALIDATION', `invalid arguments for ${entry.tool.manifest.name}: ${message}`, {
    fields,
  });
}
