import { fileSignature, watchFileChanges } from '../state/fileChanges';
import { statePaths } from '../state/paths';
import type { UpstreamOverview, UpstreamSandboxRequest } from '../../shared/upstream';
import type { SandboxInfo } from '../hosts/sandbox';
import type { ToolRegistry } from '../registry/registry';
import { secretForServer } from '../secrets/secretBindings';
import type { SecretProvider } from '../secrets/secretProvider';
import { definitionFindings } from './definitionFindings';
import { launchHash, pinHash } from './definitionPin';
import { argumentValidator } from './inputValidation';
import { openReviewStore, reviewsFile } from './reviews';
import { chooseSandbox } from './sandboxChoice';
import { readServersFile, serversFilePath } from './serversFile';
import { suggestedClass, unreviewedTier } from './suggestedClass';
import { createUpstreamConnection } from './upstreamConnection';
import { UpstreamGateway } from './upstreamGateway';

/** What a gate hands its upstream servers. */
export interface UpstreamStart {
  home: string;
  registry: ToolRegistry;
  workspace: string;
  secrets: SecretProvider;
  sandbox: SandboxInfo;
  onChange: (overview: UpstreamOverview) => void;
}

/** A running gateway and how to stop it. */
export interface RunningUpstream {
  gateway: UpstreamGateway;
  /**
   * Writes the sandbox the person chose into servers.json (see chooseSandbox) and takes the file in
   * at once, without waiting for the watch: the answer shows the new launch waiting for approval.
   */
  setSandbox(request: UpstreamSandboxRequest): Promise<UpstreamOverview>;
  close(): Promise<void>;
}

/** How often the reviews file and the servers file are looked at for changes made from a terminal or an editor. */
const POLL_MS = 1000;

/**
 * Reads servers.json and starts the servers the person approved. A file that is not JSON refuses
 * the gate's start (naming the line); a bad entry is refused alone and shown in the console.
 * While the gate runs, the servers file is watched (created, edited, removed: taken in within a
 * second, see UpstreamGateway.reload; a version that cannot be read leaves the servers as they
 * were and says why), and reviews saved by `toolgate servers review` are applied within a second.
 */
export function startUpstream(start: UpstreamStart): RunningUpstream {
  const file = serversFilePath(start.home);
  // Taken before the file is read: an edit made while the gate starts is taken in at the first look.
  const serversSeen = fileSignature(file);
  const { servers, refused } = readServersFile(start.home);
  const reviews = openReviewStore(start.home);
  const gateway = new UpstreamGateway(
    { registry: start.registry, workspace: start.workspace, file, servers, refused, sandboxed: start.sandbox.kind === 'bubblewrap', onChange: start.onChange },
    {
      connect: (config) => createUpstreamConnection(config, { home: start.home, resolveSecret: (name) => secretForServer(start.secrets, name, config.name), sandbox: start.sandbox }),
      reviews,
      pinHash,
      launchHash,
      findings: definitionFindings,
      suggestedClass,
      unreviewedTier,
      validator: argumentValidator,
    },
  );
  gateway.start();
  const stopReviews = watchFileChanges(reviewsFile(start.home), POLL_MS, () => gateway.refreshReviews());
  // A server that failed for a secret it lacked starts again once `toolgate secret set` stored one.
  const stopSecrets = watchFileChanges(statePaths(start.home).secrets, POLL_MS, () => gateway.retryFailed());
  const takeIn = () => {
    try {
      const changed = readServersFile(start.home);
      gateway.reload(changed.servers, changed.refused);
    } catch (error) {
      gateway.fileUnreadable(`${(error as Error).message}; the servers go on as they were until it is fixed`);
    }
  };
  const stopServers = watchFileChanges(file, POLL_MS, takeIn, serversSeen);
  return {
    gateway,
    setSandbox: async ({ server, sandbox, launchHash: shown }) => {
      // Nothing is written when the choice is refused, so the gateway is reloaded only after a write.
      if (chooseSandbox(start.home, server, sandbox, shown).changed) takeIn();
      return gateway.overview();
    },
    close: async () => {
      stopReviews();
      stopSecrets();
      stopServers();
      await gateway.close();
    },
  };
}
