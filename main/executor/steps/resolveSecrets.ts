import { GateError } from '../../../shared/errors';
import type { ToolManifest } from '../../../shared/manifest';
import type { RegisteredTool } from '../../registry/registry';
import { forEachString } from '../../secrets/jsonStrings';
import { placeholdersIn, resolvePlaceholders } from '../../secrets/placeholders';
import { Redactor } from '../../secrets/redactor';
import type { SecretProvider } from '../../secrets/secretProvider';
import { StepFailure } from './stepFailure';
import { describeIssues } from './validateInput';

/** A call's input with its secrets put in, and what takes them out again of whatever comes back. */
export interface ResolvedInput {
  /** The input the tool runs with (secret values in place of placeholders). */
  input: unknown;
  /** Names of the secrets used, for the audit (never their values). */
  secrets: string[];
  /** Replaces each value with its placeholder in outputs, logs and errors. */
  redactor: Redactor;
}

/**
 * Puts secret values in place of `$ENV.NAME` placeholders (seed 004's Vault-Warden protocol). A
 * path argument may not hold one: the workspace check saw the placeholder, not the path it stands for.
 */
export async function resolveSecrets(
  entry: RegisteredTool,
  input: unknown,
  provider: SecretProvider,
): Promise<ResolvedInput | StepFailure> {
  // Every placeholder and every `$$ENV.` escape contains `$ENV.`: without it the input goes as it is.
  if (!mentions(input, '$ENV.')) return { input, secrets: [], redactor: new Redactor([]) };
  const names = placeholdersIn(input);
  const manifest: ToolManifest = entry.tool.manifest;
  for (const argument of manifest.pathArguments) {
    const inPath = placeholdersIn((input as Record<string, unknown>)[argument]);
    if (inPath.length > 0) {
      return StepFailure.of(
        'secrets',
        'EVALIDATION',
        `${argument} holds the secret placeholder $ENV.${inPath[0]}; a path must be written out, so the gate can check it stays inside the workspace`,
        { argument },
      );
    }
  }
  let resolved: Awaited<ReturnType<typeof resolvePlaceholders>>;
  try {
    resolved = await resolvePlaceholders(input, provider);
  } catch (error) {
    if (error instanceof GateError) return new StepFailure('secrets', error.toToolError());
    throw error;
  }
  const redactor = new Redactor(resolved.secrets);
  // The values must fit the schema as well as the placeholders did; the message never shows them.
  const parsed = entry.tool.input.safeParse(resolved.input);
  if (!parsed.success) {
    const { message } = describeIssues(parsed.error.issues);
    return StepFailure.of('secrets', 'EVALIDATION', `with its secrets put in, the arguments for ${manifest.name} are invalid: ${redactor.redactText(message)}`);
  }
  return { input: parsed.data, secrets: names, redactor };
}

function mentions(input: unknown, text: string): boolean {
  let found = false;
  forEachString(input, (value) => {
    found ||= value.includes(text);
  });
  return found;
}
