import { z } from 'zod';
import { CapabilitySchema, SecurityTierSchema, SideEffectSchema } from './manifest';

/**
 * Upstream MCP servers: the person's own servers (filesystem, GitHub, databases…) that Toolgate
 * starts or reaches and puts in front of agents, each tool as `server__tool`.
 */

/** Between a server's name and its tool's in the name agents call: `github__create_issue`. */
export const UPSTREAM_SEPARATOR = '__';

/** A server's name in servers.json: letters, digits, - and _, never the separator itself. */
export const ServerNameSchema = z
  .string()
  .regex(/^[A-Za-z][A-Za-z0-9_-]{0,31}$/, 'a server name is up to 32 letters, digits, - and _, starting with a letter')
  .refine((name) => !name.includes(UPSTREAM_SEPARATOR) && !name.endsWith('_'), `a server name may not hold "${UPSTREAM_SEPARATOR}" or end with _`);

/** The most folders, or variable names, one list of a sandbox holds: each folder is a mount, and a longer list is a mistake. */
export const SANDBOX_LIST_MAX = 64;

/** A folder of a sandbox as written (servers.json also requires it absolute, which only main can judge). */
export const SandboxFolderSchema = z.string().min(1, 'is empty: name a folder, e.g. "/home/you/notes"').max(4096, 'is longer than any folder path (4096 characters)');

/** A variable name of a sandbox's environment allowlist: no `=` or NUL, which the OS would misread. */
export const SandboxVariableSchema = z
  .string()
  .max(256, 'is longer than a variable name may be here (256 characters)')
  .regex(/^[^=\0]+$/, 'is not an environment variable name: it may not be empty or hold = or NUL, e.g. "GITHUB_TOKEN"');

/** A list of a sandbox (folders or variable names), at most SANDBOX_LIST_MAX long, empty when left out. */
export function sandboxList<T extends z.ZodType<string>>(item: T, what: string) {
  return z.array(item).max(SANDBOX_LIST_MAX, `holds more than ${SANDBOX_LIST_MAX} ${what}: name the few the server needs`).default([]);
}

/** What a stdio server may do inside its bubblewrap sandbox; chosen at review, shown in the Tools view. */
export const UpstreamSandboxSchema = z
  .object({
    /** The host network is reachable (off by default). */
    network: z.boolean().default(false),
    /** Absolute folders it may read besides the system's read-only root (the state folder is always hidden). */
    readable: sandboxList(SandboxFolderSchema, 'folders'),
    /** Absolute folders it may write (for a filesystem server: the folders it serves). */
    writable: sandboxList(SandboxFolderSchema, 'folders'),
    /** Names of the gate's environment variables passed through (PATH, HOME and LANG always are). */
    env: sandboxList(SandboxVariableSchema, 'variable names'),
  })
  .strict();
export type UpstreamSandbox = z.infer<typeof UpstreamSandboxSchema>;

/** One server as the gate runs it, parsed from servers.json. */
export type UpstreamServerConfig =
  | {
      name: string;
      transport: 'stdio';
      command: string;
      args: string[];
      /** Variables set for it; a value `$ENV.NAME` is a secret resolved when it starts, never written out. */
      env: Record<string, string>;
      cwd?: string;
      sandbox: UpstreamSandbox;
    }
  | {
      name: string;
      transport: 'http';
      url: string;
      /** Headers sent with each request; a value may hold `$ENV.NAME` secrets (e.g. `Bearer $ENV.GITHUB_TOKEN`). */
      headers: Record<string, string>;
    };

/** A servers.json entry refused whole: the others still start. */
export interface RefusedServer {
  /** The entry's key in mcpServers. */
  name: string;
  /** The field at fault, as a dotted path from the entry (`args.2`, `url`). */
  field: string;
  /** What is wrong and how to fix it. */
  message: string;
}

/** The MCP tool annotations a server may send: hints, never trusted. */
export const ToolAnnotationsSchema = z
  .object({
    title: z.string().optional(),
    readOnlyHint: z.boolean().optional(),
    destructiveHint: z.boolean().optional(),
    idempotentHint: z.boolean().optional(),
    openWorldHint: z.boolean().optional(),
  })
  .passthrough();

/** A tool as an upstream server lists it (tools/list), after vetting. */
export const UpstreamToolDefinitionSchema = z.object({
  name: z.string().min(1),
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: z.record(z.string(), z.unknown()),
  outputSchema: z.record(z.string(), z.unknown()).optional(),
  annotations: ToolAnnotationsSchema.optional(),
});
export type UpstreamToolDefinition = z.infer<typeof UpstreamToolDefinitionSchema>;

/** How the person classified a tool (what the gate trusts), or what its annotations suggest. */
export const ToolClassSchema = z.object({
  tier: SecurityTierSchema,
  sideEffects: z.array(SideEffectSchema),
  /**
   * What the person says the tool needs (`net:read:api.github.com`, `fs:write`): the gate runs it
   * only where each is granted (`--grant`), as it does its own tools. None when absent.
   */
  capabilities: z.array(CapabilitySchema).max(16).optional(),
});
export type ToolClass = z.infer<typeof ToolClassSchema>;

/** What kind of text, in what an upstream server wrote, may be aimed at the model rather than at the person. */
export const TextFindingKindSchema = z.enum([
  'hidden-characters',
  'addressed-to-model',
  'asks-for-secrets',
  'shadowing',
  'oversized',
  /** Words spelled with look-alike letters of another script (Unicode confusables, UTS #39). */
  'homoglyphs',
  /** A long run of base64, hex or another encoding a person cannot read. */
  'encoded-text',
  /** A passage in another script or alphabet than the rest of the server's definitions. */
  'other-language',
]);
export type TextFindingKind = z.infer<typeof TextFindingKindSchema>;

/** Something in text an upstream server wrote (a definition or a result) that may be aimed at the model. */
export const TextFindingSchema = z.object({
  kind: TextFindingKindSchema,
  /** Where: `description`, `inputSchema.properties.path.description` in a definition; `content.0.text` in a result. */
  field: z.string(),
  /** The text found, with hidden characters shown as \u{…} escapes, at most 200 characters. */
  excerpt: z.string(),
  /** Why it matters, in words the person can read. */
  message: z.string(),
});
export type TextFinding = z.infer<typeof TextFindingSchema>;

/** Something in a tool's definition that may be aimed at the model rather than at the person. */
export const DefinitionFindingSchema = TextFindingSchema.extend({
  /** The upstream tool's own name. */
  tool: z.string(),
});
export type DefinitionFinding = z.infer<typeof DefinitionFindingSchema>;

/** A tool a server listed that the gate refused to register, and why. */
export interface RefusedTool {
  name: string;
  message: string;
}

/** Where one upstream server stands. */
export const UpstreamStatusSchema = z.enum([
  /** Never started: its exact command waits for the person's yes. */
  'awaiting-launch',
  'starting',
  'ready',
  /** Crashed or dropped; started again after a backoff. */
  'restarting',
  /** Gave up (refused entry, failed start past the retries, launch denied). */
  'failed',
  'stopped',
]);
export type UpstreamStatus = z.infer<typeof UpstreamStatusSchema>;

/** One upstream tool as the console's Tools view shows it for review. */
export const UpstreamToolViewSchema = z.object({
  /** The tool's own name on its server. */
  name: z.string(),
  /** The name agents call it by: `server__tool`. */
  registeredAs: z.string(),
  /** Its definition as the server sends it now. */
  definition: UpstreamToolDefinitionSchema,
  /** The hash a review must name, so what is trusted is exactly what the person saw. */
  definitionHash: z.string(),
  /** trusted: reviewed and unchanged; unreviewed: every call asks; changed: disabled until reviewed again. */
  pin: z.enum(['trusted', 'unreviewed', 'changed']),
  /** The person's class when trusted, else the one its annotations suggest (a hint, never trusted). */
  class: ToolClassSchema,
  /** The definition the person trusted, when it has changed since. */
  previous: UpstreamToolDefinitionSchema.optional(),
  findings: z.array(DefinitionFindingSchema),
});
export type UpstreamToolView = z.infer<typeof UpstreamToolViewSchema>;

/** One upstream server as the Tools view shows it. */
export const UpstreamServerViewSchema = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  /** What starts it, exactly (the command line as it runs), or the URL it is reached at. */
  launch: z.string(),
  /** The hash a launch approval must name. */
  launchHash: z.string(),
  /** Whether the person approved this exact launch (stdio servers wait for it before their first start). */
  launchApproved: z.boolean(),
  /** A stdio server's sandbox, as servers.json sets it. */
  sandbox: UpstreamSandboxSchema.optional(),
  /** Whether its sandbox is bubblewrap or it runs bare (no sandbox on this machine). */
  sandboxed: z.boolean(),
  status: UpstreamStatusSchema,
  /** The MCP revision it speaks ('2026-07-28', or the 2025-era one it agreed), once it has connected. */
  protocol: z.string().max(32).optional(),
  detail: z.string().optional(),
  restarts: z.number().int().nonnegative(),
  tools: z.array(UpstreamToolViewSchema),
  /** Tools of its list the gate refused to register, and why. */
  refused: z.array(z.object({ name: z.string(), message: z.string() })),
});
export type UpstreamServerView = z.infer<typeof UpstreamServerViewSchema>;

/** servers.json entries refused whole, shown above the servers. */
export const RefusedServerSchema = z.object({ name: z.string(), field: z.string(), message: z.string() });

/** What the Tools view shows of upstream servers. */
export const UpstreamOverviewSchema = z.object({
  /** Where the servers file is. */
  file: z.string(),
  servers: z.array(UpstreamServerViewSchema),
  refused: z.array(RefusedServerSchema),
  /** Why the servers file, changed while the gate runs, could not be read: the servers go on as they were. */
  fileProblem: z.string().max(4000).optional(),
});
export type UpstreamOverview = z.infer<typeof UpstreamOverviewSchema>;

/** A person trusting some of a server's tools as they saw them, each with its class. */
export const UpstreamReviewRequestSchema = z
  .object({
    server: ServerNameSchema,
    tools: z
      .array(
        z
          .object({
            name: z.string().min(1).max(64),
            /** The definition hash shown: a definition that changed since is refused, not trusted. */
            definitionHash: z.string().min(1).max(128),
            class: ToolClassSchema,
          })
          .strict(),
      )
      .min(1)
      .max(512),
  })
  .strict();
export type UpstreamReviewRequest = z.infer<typeof UpstreamReviewRequestSchema>;

/**
 * A person choosing a stdio server's sandbox in the Tools view: it is written into servers.json,
 * which makes a new launch that waits for their approval.
 */
export const UpstreamSandboxRequestSchema = z
  .object({
    server: ServerNameSchema,
    /** The whole sandbox chosen (servers.json's rules apply: absolute folders, variable names, limits). */
    sandbox: UpstreamSandboxSchema,
    /** The launch hash of the card the person changed: a servers.json edited since is refused, not overwritten. */
    launchHash: z.string().min(1).max(128),
  })
  .strict();
export type UpstreamSandboxRequest = z.infer<typeof UpstreamSandboxRequestSchema>;

/** A person approving a stdio server's exact launch (it starts then). */
export const UpstreamLaunchRequestSchema = z
  .object({
    server: ServerNameSchema,
    /** The launch hash shown: a servers.json edited since is refused. */
    launchHash: z.string().min(1).max(128),
  })
  .strict();
