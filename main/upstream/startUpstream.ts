import { unwatchFile, watchFile } from 'node:fs';
import type { UpstreamOverview } from '../../shared/upstream';
import type { SandboxInfo } from '../hosts/sandbox';
import type { ToolRegistry } from '../registry/registry';
import type { SecretProvider } from '../secrets/secretProvider';
import { definitionFindings } from './definitionFindings';
import { launchHash, pinHash } from './definitionPin';
import { argumentValidator } from './inputValidation';
import { openReviewStore, reviewsFile } from './reviews';
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
  close(): Promise<void>;
}

/** How often the reviews file is looked at for reviews saved from a terminal. */
const REVIEWS_POLL_MS = 1000;

/**
 * Reads servers.json and starts the servers the person approved; undefined when the file does not
 * exist. A file that is not JSON refuses the gate's start (naming the line); a bad entry is refused
 * alone and shown in the console. Reviews saved by `toolgate servers review` while the gate runs
 * are applied within a second.
 */
export function startUpstream(start: UpstreamStart): RunningUpstream | undefined {
  const file = serversFilePath(start.home);
  const { servers, refused } = readServersFile(start.home);
  if (servers.length === 0 && refused.length === 0) return undefined;
  const reviews = openReviewStore(start.home);
  const gateway = new UpstreamGateway(
    { registry: start.registry, workspace: start.workspace, file, servers, refused, sandboxed: start.sandbox.kind === 'bubblewrap', onChange: start.onChange },
    {
      connect: (config) => createUpstreamConnection(config, { home: start.home, resolveSecret: (name) => start.secrets.get(name), sandbox: start.sandbox }),
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
  const reviewed = reviewsFile(start.home);
  const refresh = () => gateway.refreshReviews();
  watchFile(reviewed, { interval: REVIEWS_POLL_MS, persistent: false }, refresh);
  return {
    gateway,
    close: async () => {
      unwatchFile(reviewed, refresh);
      await gateway.close();
    },
  };
}
