import { GateError } from '../../../shared/errors';
import type { ToolManifest } from '../../../shared/manifest';
import { UPSTREAM_SEPARATOR } from '../../../shared/upstream';
import type { PolicyDecision } from '../../policy/tierPolicy';
import { isUpstream, type RegisteredTool } from '../../registry/registry';
import { forEachString } from '../../secrets/jsonStrings';
import { placeholderFor, placeholdersIn, resolvePlaceholders, type ResolvedSecret } from '../../secrets/placeholders';
import { Redactor } from '../../secrets/redactor';
import { callDestinations, checkDestinations, secretsWarning } from '../../secrets/secretBindings';
import type { SecretProvider } from '../../secrets/secretProvider';
import { StepFailure } from './stepFailure';
import { describeIssues } from './validateInput';

/** A call's input with its secrets put in. */
export interface ResolvedInput {
  /** The input the tool runs with (secret values in place of placeholders). */
  input: unknown;
  /** Names of the secrets used, for the audit and the prompt (never their values). */
  secrets: string[];
  /** The secrets used with their values, redacted from everything while the call runs and a while after. */
  values: ResolvedSecret[];
  /** What the prompt warns of the secrets, when the tool can hand them on in any form (a shell). */
  warning?: string;
  /** The secrets the tool's own manifest sends (ownSecrets), with their values, for the tool process. */
  own?: ResolvedSecret[];
}

/**
 * Puts secret values in place of `$ENV.NAME` placeholders (seed 004's Vault-Warden protocol). A
 * secret stored with `--for` goes only there: any other destination is refused first. A path
 * argument may not hold one: the workspace check saw the placeholder, not the path it stands for.
 * A tool whose manifest says `secrets: 'refuse'` gets none at all, except an upstream server's
 * tool, which gets the secrets stored `--for server:` its server.
 */
export async function resolveSecrets(
  entry: RegisteredTool,
  input: unknown,
  provider: SecretProvider,
): Promise<ResolvedInput | StepFailure> {
  const own = await ownSecrets(entry.tool.manifest, input, provider);
  if (own instanceof StepFailure) return own;
  const withOwn = own.length > 0 ? { own } : {};
  // Every placeholder and every `$$ENV.` escape contains `$ENV.`: without it the input goes as it is.
  if (!mentions(input, '$ENV.')) return { input, secrets: [], values: own, ...withOwn };
  const names = placeholdersIn(input);
  const manifest: ToolManifest = entry.tool.manifest;
  const targets = callDestinations(manifest, input, isUpstream(entry));
  if (typeof targets === 'string') return StepFailure.of('secrets', 'EVALIDATION', targets);
  let boundHere: boolean;
  try {
    const misrouted = await checkDestinations(names, targets, provider);
    if (misrouted) return new StepFailure('secrets', misrouted.toToolError());
    // An upstream tool takes a secret only when it was stored for that server (checked just above).
    boundHere = isUpstream(entry) && (await everyBound(names, provider));
  } catch (error) {
    // The secrets file cannot be read (open to others, malformed): the message says how to fix it.
    if (error instanceof GateError) return new StepFailure('secrets', error.toToolError());
    throw error;
  }
  const refused = manifest.secrets === 'refuse' && !boundHere ? refusal(manifest.name, input, isUpstream(entry)) : undefined;
  if (refused) return refused;
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
  const moved = urlMovedBySecret(manifest, input, parsed.data);
  if (moved) return moved;
  const warning = secretsWarning(manifest, { external: isUpstream(entry), builtin: entry.module === 'builtin' });
  return { input: parsed.data, secrets: names, values: [...resolved.secrets, ...own], ...(warning ? { warning } : {}), ...withOwn };
}

/**
 * The secrets a tool's own manifest sends (an HTTP tool's `Authorization: Bearer $ENV.KEY`), each
 * held to its `--for` like a secret in the arguments: the destinations are the tool's endpoints.
 * The person reviewed the manifest naming them, so they need no prompt of their own.
 */
async function ownSecrets(manifest: ToolManifest, input: unknown, provider: SecretProvider): Promise<ResolvedSecret[] | StepFailure> {
  const names = manifest.ownSecrets ?? [];
  if (names.length === 0) return [];
  const targets = callDestinations(manifest, input, false);
  if (typeof targets === 'string') return StepFailure.of('secrets', 'EVALIDATION', targets);
  try {
    const misrouted = await checkDestinations(names, targets, provider);
    if (misrouted) return new StepFailure('secrets', misrouted.toToolError());
    return (await resolvePlaceholders(names.map(placeholderFor), provider)).secrets;
  } catch (error) {
    if (error instanceof GateError) return new StepFailure('secrets', error.toToolError());
    throw error;
  }
}

/** Whether every named secret was stored with destinations (each one already judged allowed here). */
async function everyBound(names: readonly string[], provider: SecretProvider): Promise<boolean> {
  for (const name of names) if ((await provider.destinations?.(name)) === undefined) return false;
  return true;
}

/**
 * The net grants were checked against each URL as the agent wrote it, placeholders and all: with
 * the values put in, it must still go to the same scheme, host and port (a value holding `@` or `/`
 * in the user part could move it elsewhere). The message never shows the resolved URL.
 */
function urlMovedBySecret(manifest: ToolManifest, before: unknown, after: unknown): StepFailure | undefined {
  for (const argument of manifest.urlArguments ?? []) {
    const checked = (before as Record<string, unknown>)[argument];
    const resolved = (after as Record<string, unknown>)[argument];
    if (typeof checked !== 'string' || typeof resolved !== 'string' || placeholdersIn(checked).length === 0) continue;
    if (URL.canParse(checked) && URL.canParse(resolved) && new URL(checked).origin === new URL(resolved).origin) continue;
    return StepFailure.of(
      'secrets',
      'EVALIDATION',
      `${argument}: with ${placeholdersIn(checked).map(placeholderFor).join(', ')} put in, the URL would no longer go to the host the gate checked; ` +
        `a secret may not change where a request goes: put it in the path or the query, e.g. https://api.example.com/items?token=$ENV.NAME`,
      { argument },
    );
  }
  return undefined;
}

/**
 * A call that receives secrets is never run on policy alone: whatever its tool's tier, a person
 * sees which secrets it gets and decides. A call policy denies stays denied.
 */
export function askForSecrets(decision: PolicyDecision, tool: string, secrets: readonly string[]): PolicyDecision {
  if (secrets.length === 0 || decision.decision !== 'allow') return decision;
  return {
    decision: 'ask',
    rule: 'secrets→ask',
    reason: `${tool} would receive the secrets ${secrets.map(placeholderFor).join(', ')}, which only a person may release`,
    ...(decision.mode ? { mode: decision.mode } : {}),
  };
}

/** The refusal of a placeholder sent to a tool that hands its input back (or to an upstream tool), naming the field it is in. */
function refusal(tool: string, input: unknown, upstream: boolean): StepFailure | undefined {
  const found = firstPlaceholderField(input, '');
  if (!found) return undefined;
  const server = tool.split(UPSTREAM_SEPARATOR)[0]!;
  return StepFailure.of(
    'secrets',
    'EVALIDATION',
    upstream
      ? `${found.field} holds the secret placeholder ${placeholderFor(found.name)}, which was not stored for the server ${server}: ` +
          `an upstream tool receives only secrets stored for its server (\`toolgate secret set ${found.name} --for server:${server}\`)`
      : `${found.field} holds the secret placeholder ${placeholderFor(found.name)}, and ${tool} does not take secrets: ` +
          `its result gives its input back (or lets it be checked), which would hand the value to the agent. ` +
          `Pass secrets only to tools that use them, such as http_fetch or shell_exec`,
    { field: found.field, placeholder: placeholderFor(found.name) },
  );
}

/** The path (`text`, `headers.authorization`, `items[2]`) of the first string holding a placeholder. */
function firstPlaceholderField(value: unknown, path: string): { field: string; name: string } | undefined {
  if (typeof value === 'string') {
    const name = placeholdersIn(value)[0];
    return name === undefined ? undefined : { field: path || '(the arguments)', name };
  }
  if (typeof value !== 'object' || value === null) return undefined;
  for (const [key, member] of Object.entries(value)) {
    const found = firstPlaceholderField(member, Array.isArray(value) ? `${path}[${key}]` : path ? `${path}.${key}` : key);
    if (found) return found;
  }
  return undefined;
}

function mentions(input: unknown, text: string): boolean {
  let found = false;
  forEachString(input, (value) => {
    found ||= value.includes(text);
  });
  return found;
}
