import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../shared/errors';
import { ToolClassSchema, UPSTREAM_SEPARATOR, UpstreamToolDefinitionSchema, type ToolClass, type UpstreamToolDefinition } from '../../shared/upstream';
import { writeFileAtomically } from '../state/atomicFile';
import { pinHash } from './definitionPin';
import { suggestedClass } from './suggestedClass';
import type { PinState, ReviewStore, ToolReview } from './types';

/** The reviews file of a state folder. */
export function reviewsFile(home: string): string {
  return join(home, 'upstream-reviews.json');
}

/** A tool's saved review, as the file holds it. */
const ToolReviewSchema = z.object({
  /** pinHash() of the definition trusted. */
  definitionHash: z.string().regex(/^[0-9a-f]{64}$/, 'a definitionHash is 64 hex digits'),
  /** The definition trusted, kept to show beside a changed one. */
  definition: UpstreamToolDefinitionSchema,
  class: ToolClassSchema,
  /** When the person trusted it (ISO 8601). */
  reviewedAt: z.string(),
}) satisfies z.ZodType<ToolReview>;

/** What trust() is asked to save for one tool. */
const TrustRequestSchema = z.object({ definition: UpstreamToolDefinitionSchema, class: ToolClassSchema });

/**
 * The reviews file. Servers and tools are lists, not objects keyed by name: a name is data, so a
 * server or tool called `__proto__` is stored like any other.
 */
const ReviewsFileSchema = z.object({
  version: z.literal(1),
  servers: z.array(
    z.object({
      name: z.string(),
      /** launchHash() of the launch the person approved. */
      approvedLaunch: z.string().optional(),
      tools: z.array(ToolReviewSchema),
    }),
  ),
});
type ReviewsFile = z.infer<typeof ReviewsFileSchema>;

/** One server's reviews in memory, by tool name. */
interface ServerReviews {
  approvedLaunch?: string;
  tools: Map<string, ToolReview>;
}

/** What identifies one version of the file on disk: a change by another process changes one of these. */
type FileVersion = string;

/**
 * The saved reviews in $TOOLGATE_HOME/upstream-reviews.json. Read when the file changed on disk
 * (its size, mtime or inode differ from the last seen), so a review made in a terminal reaches a
 * running gate at its next question; each change is read, applied and written back atomically (mode
 * 0600). A file that does not parse or validate is refused with a GateError and left as it is: reset,
 * it would forget every pin, and a tool whose definition changed would be asked about as new.
 */
export function openReviewStore(home: string): ReviewStore {
  const file = reviewsFile(home);
  let servers = new Map<string, ServerReviews>();
  let seen: FileVersion | undefined;

  const current = (): Map<string, ServerReviews> => {
    const version = fileVersion(file);
    if (version !== seen) {
      servers = version === undefined ? new Map() : readReviews(file);
      seen = version;
    }
    return servers;
  };
  const save = () => {
    mkdirSync(home, { recursive: true, mode: 0o700 });
    writeFileAtomically(file, `${JSON.stringify(toFile(servers), null, 2)}\n`, 0o600);
    seen = fileVersion(file);
  };
  const serverReviews = (server: string): ServerReviews => {
    const all = current();
    let reviews = all.get(server);
    if (!reviews) all.set(server, (reviews = { tools: new Map() }));
    return reviews;
  };

  return {
    approvedLaunch: (server) => current().get(server)?.approvedLaunch,
    approveLaunch(server, launchHash) {
      serverReviews(server).approvedLaunch = launchHash;
      save();
    },
    pinState(server, definition) {
      const review = current().get(server)?.tools.get(definition.name);
      return pinStateAgainst(review, definition);
    },
    trust(server, reviews) {
      for (const review of reviews) checkTrusted(server, review);
      const tools = serverReviews(server).tools;
      const reviewedAt = new Date().toISOString();
      for (const { definition, class: toolClass } of reviews) tools.set(definition.name, newReview(definition, toolClass, reviewedAt));
      save();
    },
    forget(server) {
      if (current().delete(server)) save();
    },
  };
}

/** Where a tool stands against its review (or the lack of one). */
function pinStateAgainst(review: ToolReview | undefined, definition: UpstreamToolDefinition): PinState {
  if (!review) return { state: 'unreviewed', suggested: suggestedClass(definition) };
  return review.definitionHash === pinHash(definition) ? { state: 'trusted', review } : { state: 'changed', review, current: definition };
}

/** Refuses, before anything is saved, a definition or class the file could not be read back with. */
function checkTrusted(server: string, review: { definition: UpstreamToolDefinition; class: ToolClass }): void {
  const checked = TrustRequestSchema.safeParse(review);
  if (checked.success) return;
  const issue = checked.error.issues[0]!;
  throw new GateError('EVALIDATION', `${server}${UPSTREAM_SEPARATOR}${review.definition?.name ?? '?'} cannot be trusted: ${issue.path.join('.')}: ${issue.message}; nothing was saved`);
}

function newReview(definition: UpstreamToolDefinition, toolClass: ToolClass, reviewedAt: string): ToolReview {
  return { definitionHash: pinHash(definition), definition, class: { tier: toolClass.tier, sideEffects: [...toolClass.sideEffects], ...(toolClass.capabilities?.length ? { capabilities: [...toolClass.capabilities] } : {}) }, reviewedAt };
}

function fileVersion(file: string): FileVersion | undefined {
  try {
    const stat = statSync(file, { bigint: true });
    return `${stat.ino}:${stat.size}:${stat.mtimeNs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw unreadable(file, error);
  }
}

function readReviews(file: string): Map<string, ServerReviews> {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    if (error instanceof SyntaxError) throw refused(file, `it is not JSON (${error.message})`);
    throw unreadable(file, error);
  }
  const parsed = ReviewsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw refused(file, `${issue.path.join('.') || 'the file'}: ${issue.message}`);
  }
  const rawServers = (raw as { servers: { tools: { definition: UpstreamToolDefinition }[] }[] }).servers;
  const servers = new Map<string, ServerReviews>();
  parsed.data.servers.forEach((entry, serverIndex) => {
    // The definition as written, not as parsed: a schema key the parser drops (`__proto__`) still counts in its pin.
    const tools = entry.tools.map((review, toolIndex): [string, ToolReview] => [review.definition.name, { ...review, definition: rawServers[serverIndex]!.tools[toolIndex]!.definition }]);
    servers.set(entry.name, { approvedLaunch: entry.approvedLaunch, tools: new Map(tools) });
  });
  return servers;
}

function toFile(servers: ReadonlyMap<string, ServerReviews>): ReviewsFile {
  return {
    version: 1,
    servers: [...servers].map(([name, reviews]) => ({ name, approvedLaunch: reviews.approvedLaunch, tools: [...reviews.tools.values()] })),
  };
}

function refused(file: string, problem: string): GateError {
  return new GateError(
    'EVALIDATION',
    `${file} is not a valid reviews file (${problem}); it was left as it is. Fix it by hand, or move it aside and review each server again with \`toolgate servers review NAME\``,
  );
}

function unreadable(file: string, error: unknown): GateError {
  return new GateError('EPERMISSION', `${file} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); make it readable by you`);
}
