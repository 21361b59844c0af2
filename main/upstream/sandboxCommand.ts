import { UpstreamSandboxSchema, type UpstreamSandbox } from '../../shared/upstream';
import { launchLines } from './reviewCommand';
import { openReviewStore } from './reviews';
import { chooseSandbox } from './sandboxChoice';
import { readServersFile, serversFilePath } from './serversFile';

/** How `toolgate servers sandbox` changes a sandbox: each list cleared first or kept, then added to. */
export interface SandboxChanges {
  /** On or off; absent keeps it. */
  network?: boolean;
  /** Empty the list before adding (`--no-writable`…): the added ones are then the whole list. */
  clear: { readable: boolean; writable: boolean; env: boolean };
  /** Folders and variable names added, as given. */
  add: { readable: string[]; writable: string[]; env: string[] };
}

/** What `toolgate servers sandbox NAME` is given. */
export interface SandboxCommandOptions {
  home: string;
  server: string;
  changes: SandboxChanges;
  out(text: string): void;
}

/** The sandbox `changes` make of `current`: each list cleared or kept, then the additions it lacks appended. */
export function changedSandbox(current: UpstreamSandbox, changes: SandboxChanges): UpstreamSandbox {
  const list = (field: 'readable' | 'writable' | 'env') => {
    const kept = changes.clear[field] ? [] : current[field];
    return [...kept, ...changes.add[field].filter((item, index, added) => !kept.includes(item) && added.indexOf(item) === index)];
  };
  return { network: changes.network ?? current.network, readable: list('readable'), writable: list('writable'), env: list('env') };
}

/** Whether `changes` asks for any change at all (without one, the command only shows the sandbox). */
function asksForChange(changes: SandboxChanges): boolean {
  return changes.network !== undefined || Object.values(changes.clear).some(Boolean) || Object.values(changes.add).some((added) => added.length > 0);
}

/**
 * `toolgate servers sandbox NAME`: changes a stdio server's sandbox in servers.json, as the Tools
 * view does (see chooseSandbox: the file's own rules, nothing else of the file touched), and prints
 * its launch with the new sandbox and what starting it takes now: the sandbox is part of the
 * launch, so a changed one waits for approval (`servers review NAME`, or the Tools view). Without
 * a change asked for, it prints the launch and sandbox as they are.
 */
export function sandboxCommand(options: SandboxCommandOptions): number {
  const { home, server, changes, out } = options;
  const current = readServersFile(home).servers.find((candidate) => candidate.name === server);
  if (current?.transport === 'stdio' && !asksForChange(changes)) {
    out(`${launchLines(current)}change it with --network on|off, --writable DIR, --readable DIR, --env NAME (each adds; --no-writable, --no-readable, --no-env empty a list first)\n`);
    return 0;
  }
  // Anything else (no such server, an HTTP one, a refused or disabled entry) is refused there, saying why.
  const base = current?.transport === 'stdio' ? current.sandbox : UpstreamSandboxSchema.parse({});
  const choice = chooseSandbox(home, server, changedSandbox(base, changes));
  out(launchLines(choice.config));
  if (!choice.changed) {
    out(`that is the sandbox ${server} already has: ${serversFilePath(home)} was not changed\n`);
    return 0;
  }
  const approved = openReviewStore(home).approvedLaunch(server) === choice.launchHash;
  out(
    approved
      ? `wrote its sandbox into ${serversFilePath(home)}; you approved this exact launch before, so a running gate starts it with it within a second\n`
      : `wrote its sandbox into ${serversFilePath(home)}; its launch changed, so it needs your approval before it starts: toolgate servers review ${server} (or the Tools view). A running gate stops it within a second until then.\n`,
  );
  return 0;
}
