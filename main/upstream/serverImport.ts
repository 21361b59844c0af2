import { isDeepStrictEqual } from 'node:util';
import { GateError } from '../../shared/errors';
import type { RefusedServer } from '../../shared/upstream';
import { convertClientEntry, isToolgateBridge, readClientServers, type ClientConfig, type ImportNote } from './clientConfigs';
import { rewriteClientConfig, type RewriteRecord } from './clientRewrite';
import { parseServerEntry, readServersFile, writeServersFile } from './serversFile';

/**
 * `toolgate servers import`: a client's servers merged into servers.json. Nothing a person wrote
 * there is overwritten unless asked, and every server not taken says why.
 */

/** What an import did, server by server. */
export interface ImportReport {
  /** The client config read. */
  source: string;
  added: string[];
  /** Names servers.json had with another entry, replaced (--replace). */
  replaced: string[];
  /** Names servers.json already had with the same entry. */
  unchanged: string[];
  /** Servers not taken: their entry is refused, or the name is taken by another entry. */
  refused: RefusedServer[];
  /** Entries not imported because they are Toolgate's own bridge. */
  bridges: string[];
  /** Client-specific fields dropped, by server. */
  dropped: { name: string; fields: string[] }[];
  /** What the conversion changed or left as text, by server. */
  notes: (ImportNote & { name: string })[];
  /** The rewrite of the client's config, when asked. */
  rewrite?: RewriteRecord;
}

/** How to import. */
export interface ImportOptions {
  /** Take the client's entry for a name servers.json already has with another. */
  replace?: boolean;
  /** Then make the client reach its servers only through Toolgate (refused unless every server was taken). */
  rewrite?: boolean;
}

/**
 * Reads the client's servers and merges them into $TOOLGATE_HOME/servers.json. A client config
 * that cannot be read or is not JSON throws before anything is written; so does --rewrite when a
 * server would not be taken, since the client would lose it.
 */
export function importServers(home: string, config: ClientConfig, options: ImportOptions = {}): ImportReport {
  const client = readClientServers(config);
  const current = readServersFile(home);
  const entries = { ...current.entries };
  const report: ImportReport = { source: config.path, added: [], replaced: [], unchanged: [], refused: [], bridges: [], dropped: [], notes: [] };
  for (const { name, raw } of client.servers) {
    if (isToolgateBridge(raw)) {
      report.bridges.push(name);
      continue;
    }
    const { entry, dropped, notes } = convertClientEntry(raw);
    if (dropped.length > 0) report.dropped.push({ name, fields: dropped });
    report.notes.push(...notes.map((note) => ({ name, ...note })));
    const parsed = parseServerEntry(name, entry);
    if (parsed.kind === 'refused') {
      report.refused.push(parsed.refused);
      continue;
    }
    const existing = current.entries[name];
    if (existing === undefined) report.added.push(name);
    else if (isDeepStrictEqual(existing, entry)) {
      report.unchanged.push(name);
      continue;
    } else if (options.replace) report.replaced.push(name);
    else {
      report.refused.push({ name, field: 'name', message: `servers.json already has a different "${name}": rename one of them, or pass --replace to take the client's` });
      continue;
    }
    entries[name] = entry;
  }
  if (options.rewrite && report.refused.length > 0) {
    const names = report.refused.map((refused) => refused.name).join(', ');
    throw new GateError('EVALIDATION', `nothing was imported or rewritten: ${config.path} would lose ${names}, which Toolgate would not take (run without --rewrite to see why, fix them, then rewrite)`, report.refused);
  }
  writeServersFile(home, { mcpServers: entries });
  if (options.rewrite) report.rewrite = rewriteClientConfig(home, client);
  return report;
}
