import { z } from 'zod';

/** Security tiers, lowest first; the index is the tier's level (0–4). */
export const SECURITY_TIERS = ['SAFE', 'STANDARD', 'ELEVATED', 'RESTRICTED', 'DANGEROUS'] as const;

/** How much harm a tool can do: SAFE (none) to DANGEROUS (typically blocked). */
export const SecurityTierSchema = z.enum(SECURITY_TIERS);
export type SecurityTier = z.infer<typeof SecurityTierSchema>;

/** The numeric level (0–4) of a tier. */
export function tierLevel(tier: SecurityTier): number {
  return SECURITY_TIERS.indexOf(tier);
}

/** An observable effect of a tool on the world; none at all means the tool is pure. */
export const SideEffectSchema = z.enum([
  'NetRead',
  'NetWrite',
  'FsRead',
  'FsWrite',
  'DbRead',
  'DbWrite',
  'ProcessSpawn',
]);
export type SideEffect = z.infer<typeof SideEffectSchema>;

/** Side effects that change state: a read-only registry refuses tools declaring any of them. */
export const MUTATING_SIDE_EFFECTS: readonly SideEffect[] = ['FsWrite', 'NetWrite', 'DbWrite', 'ProcessSpawn'];

/** The side effects of a tool that change state (empty for a read-only tool). */
export function mutatingEffects(sideEffects: readonly SideEffect[]): SideEffect[] {
  return sideEffects.filter((effect) => MUTATING_SIDE_EFFECTS.includes(effect));
}

/** Whether the same input always gives the same output. */
export const DeterminismSchema = z.enum(['Pure', 'Deterministic', 'Maybe', 'NonDeterministic']);
export type Determinism = z.infer<typeof DeterminismSchema>;

/**
 * A capability with its scope: `kind:access[:scope]`, for example `fs:read`, `fs:write:src/**`,
 * `net:read:api.github.com`, `process:spawn`.
 */
export const CapabilitySchema = z
  .string()
  .regex(
    /^(fs|net|db|process):(read|write|spawn)(:[^\s]+)?$/,
    'a capability reads kind:access[:scope], e.g. fs:write:src/** or net:read:api.github.com',
  );
export type Capability = z.infer<typeof CapabilitySchema>;

/** Hard limits one call of a tool runs under. */
export const ResourceBoundsSchema = z.object({
  /** Wall-clock deadline of one call, in milliseconds. */
  timeoutMs: z.number().int().positive().max(3_600_000),
  /** Memory the tool process may use, in MiB. */
  maxMemoryMb: z.number().int().positive().max(65_536),
  /** Bytes of output returned to the agent before it is cut. */
  maxOutputBytes: z.number().int().positive().max(16 * 1024 * 1024),
  /** Calls of this tool that may run at once (seed 002); unlimited beyond the pool when absent. */
  maxConcurrent: z.number().int().positive().max(1024).optional(),
  /** Network limits, for tools that use the network. */
  network: z
    .object({
      /** Requests one call may make. */
      maxRequests: z.number().int().nonnegative(),
      /** Bytes one call may transfer. */
      maxBytes: z.number().int().nonnegative(),
    })
    .optional(),
});
export type ResourceBounds = z.infer<typeof ResourceBoundsSchema>;

/** The bounds a tool gets for whatever it does not declare. */
export const DEFAULT_BOUNDS: ResourceBounds = { timeoutMs: 30_000, maxMemoryMb: 256, maxOutputBytes: 16 * 1024 };

/** A JSON Schema document (as exported from a zod schema). */
export const JsonSchemaSchema = z.record(z.string(), z.unknown());

/** One argument value that puts a call a tier higher than its tool (e.g. `recursive: true` on a delete). */
export const TierEscalationSchema = z.object({
  /** The top-level input field it looks at. */
  argument: z.string().min(1),
  /** The value that escalates (compared with ===). */
  equals: z.union([z.string(), z.number(), z.boolean(), z.null()]),
  /** The tier such a call is judged at; must be above the tool's own. */
  tier: SecurityTierSchema,
  /** Why, in words the person can read. */
  reason: z.string().min(1),
});
export type TierEscalation = z.infer<typeof TierEscalationSchema>;

/** Whether a tool takes secret placeholders in its arguments ('resolve') or refuses them ('refuse'). */
export const SecretHandlingSchema = z.enum(['resolve', 'refuse']);
export type SecretHandling = z.infer<typeof SecretHandlingSchema>;

/**
 * A tool's name: a built-in or module tool's is lower case letters, digits and _ (`write_file`); an
 * upstream MCP server's tool is `server__tool`, its server's name and its own (`github__create_issue`).
 */
export const TOOL_NAME_PATTERN = /^(?:[a-z][a-z0-9_]{0,63}|[A-Za-z][A-Za-z0-9_-]{0,31}__[A-Za-z0-9_.-]{1,64})$/;

/** What a tool name must look like, for the messages that refuse one. */
export const TOOL_NAME_RULE = 'a tool name is lower case letters, digits and _, starting with a letter (or server__tool for an upstream server\'s tool)';

/** What a tool declares about itself; the gate trusts only the manifest it registered. */
export const ToolManifestSchema = z.object({
  /** Unique name agents call the tool by. */
  name: z.string().regex(TOOL_NAME_PATTERN, TOOL_NAME_RULE),
  /** Semantic version of the tool's interface. */
  version: z.string().regex(/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/, 'a version is semver, e.g. 1.0.0'),
  /** What the tool does, written for the model that will call it. */
  description: z.string().min(1),
  /** How much harm the tool can do; drives the default policy. */
  tier: SecurityTierSchema,
  /** Every effect the tool may have; empty means pure. */
  sideEffects: z.array(SideEffectSchema),
  /** Whether the same input always gives the same output. */
  determinism: DeterminismSchema,
  /** Capabilities the tool needs, each with its scope. */
  capabilities: z.array(CapabilitySchema),
  /** Hard limits of one call. */
  bounds: ResourceBoundsSchema,
  /** Input fields that name workspace paths; the gate confines them before anything runs. */
  pathArguments: z.array(z.string()),
  /**
   * Path arguments (also listed in pathArguments) naming where the tool works rather than what it
   * changes, like a shell's cwd: the protected-path check looks at the folder itself, not at the
   * protected entries it holds (naming the workspace root as cwd does not touch its .git).
   */
  workingDirectoryArguments: z.array(z.string()).optional(),
  /**
   * Input fields holding URLs; the gate refuses any but http(s) and requires a `net:<access>:<host>`
   * grant covering each URL's host (the tool's bare `net:<access>` capabilities are scoped per call).
   */
  urlArguments: z.array(z.string()).optional(),
  /**
   * URLs the tool reaches whatever its arguments (an HTTP tool's endpoint, its arguments only in the
   * path and query): each is checked against the net grants as URL arguments are, and secrets are
   * held to their hosts.
   */
  endpoints: z.array(z.string()).optional(),
  /**
   * Secrets the tool's own declaration sends (an HTTP tool's `Authorization: Bearer $ENV.KEY`): the
   * gate resolves them for each call, held to their `--for` like any secret, and hands them to the tool.
   */
  ownSecrets: z.array(z.string()).optional(),
  /** Whether the tool can preview its effect without making it (dry run). */
  supportsDryRun: z.boolean(),
  /** Argument values that raise one call's tier; policy judges by the highest that matches. */
  escalations: z.array(TierEscalationSchema).optional(),
  /**
   * How the tool takes `$ENV.NAME` secret placeholders: 'resolve' (also when absent) puts the values
   * in; 'refuse' rejects every call whose arguments hold one (EVALIDATION naming the field). For
   * tools whose result gives their input back (echo, calculator) or lets a guess at it be checked
   * (hash: a secret's digest confirms a guessed value offline, so it is an oracle for the secret).
   */
  secrets: SecretHandlingSchema.optional(),
  /** JSON Schema of the input. */
  inputSchema: JsonSchemaSchema,
  /** JSON Schema of the output. */
  outputSchema: JsonSchemaSchema,
});
export type ToolManifest = z.infer<typeof ToolManifestSchema>;
