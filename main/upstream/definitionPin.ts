import { hashCanonical } from '../../shared/hash';
import type { UpstreamServerConfig, UpstreamToolDefinition } from '../../shared/upstream';

/**
 * The hashes a review is bound to. Both are BLAKE3 of canonical JSON (RFC 8785), so key order and
 * white space never change them and any change of a value does; a field that is absent and one set
 * to undefined hash alike, since canonical JSON writes neither.
 */

/**
 * The pin of a tool definition: everything the model reads or the gate trusts (name, title,
 * description, input and output schema, annotations). A server that changes any of it after the
 * person trusted the tool (a "rug pull") gets a different pin, and the tool is disabled until reviewed.
 */
export function pinHash(definition: UpstreamToolDefinition): string {
  const { name, title, description, inputSchema, outputSchema, annotations } = definition;
  return hashCanonical({ name, title, description, inputSchema, outputSchema, annotations });
}

/**
 * The hash of a server's exact launch as the person approved it: for stdio the command, args, env
 * (names and values as written, `$ENV.NAME` placeholders unresolved, so no secret is hashed and a
 * rotated secret needs no new approval), cwd and sandbox; for http the url and headers.
 */
export function launchHash(config: UpstreamServerConfig): string {
  if (config.transport === 'http') {
    const { transport, url, headers } = config;
    return hashCanonical({ transport, url, headers });
  }
  const { transport, command, args, env, cwd, sandbox } = config;
  return hashCanonical({ transport, command, args, env, cwd, sandbox });
}
