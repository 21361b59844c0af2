import { isDeepStrictEqual } from 'node:util';
import { GateError } from '../../shared/errors';
import { UpstreamSandboxSchema, type UpstreamSandbox, type UpstreamServerConfig } from '../../shared/upstream';
import { launchHash } from './definitionPin';
import { parseServerEntry, readServersFile, serversFilePath, writeServersFile } from './serversFile';

/**
 * A stdio server's sandbox chosen by the person (in the Tools view or with `toolgate servers
 * sandbox`) rather than by editing servers.json: the choice is written into that server's entry,
 * held to the very rules the file is (writeServersFile parses the entry as the gate will read it),
 * and, since the sandbox is part of the launch hash, the server's new launch waits for approval.
 */

type StdioConfig = Extract<UpstreamServerConfig, { transport: 'stdio' }>;

/** What choosing a sandbox came to. */
export interface SandboxChoice {
  /** The server as servers.json now holds it. */
  config: StdioConfig;
  /** Its launch hash now: a different one than before waits for the person's approval. */
  launchHash: string;
  /** False when the sandbox chosen is the one it had: nothing was written. */
  changed: boolean;
}

/**
 * Writes `sandbox` into the servers.json entry of the stdio server `server`; the other entries,
 * the entry's other fields and every comment stay as written. `shownLaunchHash`, when given, is the
 * launch the person was looking at: an entry changed since is refused rather than overwritten. An
 * HTTP server (Toolgate does not run it), a disabled or refused entry, or a sandbox the file would
 * refuse (a relative folder, a bad variable name, too long a list) throws a GateError, and nothing
 * is written.
 */
export function chooseSandbox(home: string, server: string, sandbox: UpstreamSandbox, shownLaunchHash?: string): SandboxChoice {
  const contents = readServersFile(home);
  const file = serversFilePath(home);
  if (!Object.hasOwn(contents.entries, server)) {
    const known = Object.keys(contents.entries);
    throw new GateError('ENOTFOUND', `no server named ${server} in ${file}${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}; its sandbox was not changed`);
  }
  const refused = contents.refused.find((entry) => entry.name === server);
  if (refused) {
    throw new GateError('EVALIDATION', `${server} is refused in ${file} (${refused.field ? `${refused.field}: ` : ''}${refused.message}); fix that first, then choose its sandbox`, refused);
  }
  if (contents.disabled.includes(server)) {
    throw new GateError('EVALIDATION', `${server} is disabled in ${file}: remove its "disabled": true first, then choose its sandbox`);
  }
  const config = contents.servers.find((candidate) => candidate.name === server)!;
  if (config.transport !== 'stdio') {
    throw new GateError(
      'EVALIDATION',
      `${server} is reached over HTTP at ${config.url}: Toolgate does not start it, so it runs in no sandbox of Toolgate's and has none to choose (only a server started by "command" has one)`,
    );
  }
  if (shownLaunchHash !== undefined && launchHash(config) !== shownLaunchHash) {
    throw new GateError('EVALIDATION', `${server}'s entry in ${file} changed since it was shown; look at its launch again and choose its sandbox there (nothing was written)`);
  }
  // Compared as the gate reads it, so writing out the defaults the entry left unwritten is no change.
  const chosen = UpstreamSandboxSchema.safeParse(sandbox);
  if (chosen.success && isDeepStrictEqual(chosen.data, config.sandbox)) return { config, launchHash: launchHash(config), changed: false };
  const raw = contents.entries[server] as Record<string, unknown>;
  const entry = { ...raw, sandbox: sandboxAsWritten(sandbox, raw.sandbox) };
  writeServersFile(home, { mcpServers: { ...contents.entries, [server]: entry } });
  const written = parseServerEntry(server, entry);
  if (written.kind !== 'server' || written.config.transport !== 'stdio') throw new GateError('EVALIDATION', `${server}'s entry was written but reads back as ${written.kind}; look at ${file}`);
  return { config: written.config, launchHash: launchHash(written.config), changed: true };
}

/**
 * The sandbox object to write: each field the entry already had, and each that differs from its
 * default; a field left at its default and never written stays out, as the person left it.
 */
function sandboxAsWritten(sandbox: UpstreamSandbox, before: unknown): Record<string, unknown> {
  const had = typeof before === 'object' && before !== null ? Object.keys(before) : [];
  const defaults = UpstreamSandboxSchema.parse({});
  return Object.fromEntries(Object.entries(sandbox).filter(([key, value]) => had.includes(key) || !isDeepStrictEqual(value, defaults[key as keyof UpstreamSandbox])));
}
