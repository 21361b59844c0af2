/**
 * Holds each secret to the destinations it was stored for: a call that would send one anywhere
 * else is refused before policy, before any prompt, before its value is looked up for the call.
 */
import { GateError } from '../../shared/errors';
import type { ToolManifest } from '../../shared/manifest';
import { UPSTREAM_SEPARATOR } from '../../shared/upstream';
import { destinationAllows, formatDestination, type SecretDestination } from './secretDestinations';
import { placeholderFor } from './placeholders';
import type { SecretProvider } from './secretProvider';

/** What the approval prompt says of a secret given to a tool that runs code: nothing it prints is held to a form. */
export const ANY_FORM_WARNING = 'output can carry it in any form';

/**
 * Where a call of this tool would send the secrets in its arguments: an upstream tool's server,
 * the hosts of a tool's URL arguments and endpoints, or else the tool itself. An error message when the call's
 * URL cannot be read (which the capability check refuses first, so only a bug reaches it).
 */
export function callDestinations(manifest: ToolManifest, input: unknown, external: boolean): SecretDestination[] | string {
  if (external) return [{ kind: 'server', server: manifest.name.split(UPSTREAM_SEPARATOR)[0]! }];
  const targets: SecretDestination[] = [];
  const urls = [
    ...(manifest.urlArguments ?? []).map((argument) => ({ argument, url: (input as Record<string, unknown>)[argument] })),
    ...(manifest.endpoints ?? []).map((url) => ({ argument: 'endpoint', url })),
  ];
  for (const { argument, url } of urls) {
    if (url === undefined) continue;
    if (typeof url !== 'string' || !URL.canParse(url)) return `${argument} is not a URL, so the gate cannot tell where its secrets would go`;
    const parsed = new URL(url);
    const port = parsed.port === '' ? (parsed.protocol === 'https:' ? 443 : parsed.protocol === 'http:' ? 80 : undefined) : Number(parsed.port);
    targets.push({ kind: 'host', tool: manifest.name, host: parsed.hostname.replace(/\.$/, ''), ...(port !== undefined ? { port } : {}) });
  }
  return targets.length > 0 ? targets : [{ kind: 'tool', tool: manifest.name }];
}

/**
 * The prompt's warning for secrets given to this tool, when what it prints is out of the gate's
 * sight: a tool that starts programs (shell_exec), or a module's tool (code that is not the gate's).
 * An upstream server's tool is judged by its server's review; a built-in tool's output is known.
 */
export function secretsWarning(manifest: ToolManifest, where: { external: boolean; builtin: boolean }): string | undefined {
  if (where.external) return undefined;
  return !where.builtin || manifest.sideEffects.includes('ProcessSpawn') ? ANY_FORM_WARNING : undefined;
}

/** One secret the call may not send where it would, with where it may go. */
interface Misrouted {
  name: string;
  allowed: readonly SecretDestination[];
  target: SecretDestination;
}

/**
 * The refusal of a call that would send a secret somewhere its `--for` does not name (EPERMISSION,
 * naming the secret, where it was going and the `--for` that would let it), or undefined when
 * every secret may go where the call sends it. Secrets stored without `--for` are not judged here.
 * Names without a value are left to the placeholder lookup, which says how to store them.
 */
export async function checkDestinations(names: readonly string[], targets: readonly SecretDestination[], provider: SecretProvider): Promise<GateError | undefined> {
  const misrouted: Misrouted[] = [];
  for (const name of names) {
    const allowed = await provider.destinations?.(name);
    if (allowed === undefined) continue;
    const target = targets.find((candidate) => !allowed.some((destination) => destinationAllows(destination, candidate)));
    if (target) misrouted.push({ name, allowed, target });
  }
  const first = misrouted[0];
  if (!first) return undefined;
  return new GateError('EPERMISSION', misrouted.map(describe).join('; '), {
    secret: placeholderFor(first.name),
    destination: formatDestination(first.target),
    allowed: first.allowed.map(formatDestination),
  });
}

function describe({ name, allowed, target }: Misrouted): string {
  const kept = allowed.map(formatDestination);
  const wanted = formatDestination(target);
  return (
    `${placeholderFor(name)} may go only to ${kept.join(', ')}, and this call would send it to ${wanted}: refused before anyone was asked. ` +
    `If ${wanted} should have it, store it again with \`toolgate secret set ${name} ${[...kept, wanted].map((destination) => `--for ${destination}`).join(' ')}\``
  );
}

/**
 * A secret's value for an upstream server's own configuration (its env or headers in servers.json):
 * refused with EPERMISSION when the secret was stored for other destinations only.
 */
export async function secretForServer(provider: SecretProvider, name: string, server: string): Promise<string | undefined> {
  const refusal = await checkDestinations([name], [{ kind: 'server', server }], provider);
  if (refusal) throw refusal;
  return provider.get(name);
}
