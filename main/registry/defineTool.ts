import { z } from 'zod';
import { GateError } from '../../shared/errors';
import type { HealthStatus } from '../../shared/health';
import {
  DEFAULT_BOUNDS,
  ToolManifestSchema,
  type Capability,
  type Determinism,
  type ResourceBounds,
  type SecretHandling,
  type SecurityTier,
  type SideEffect,
  type TierEscalation,
  type ToolManifest,
  tierLevel,
} from '../../shared/manifest';
import type { ResolvedSecret } from '../secrets/placeholders';

/** What a tool's code is told about the call it serves (inside the tool process). */
export interface ToolContext {
  /** Absolute real path of the workspace root the tool is confined to. */
  readonly workspace: string;
  /** Preview the effect (return a Preview) instead of making it. */
  readonly dryRun: boolean;
  /** The call's id, for logs. */
  readonly callId: string;
  /**
   * Streams a piece of the call's output to the console's Live view while it runs (shell output).
   * Absent where nobody listens (dry runs, tests); the gate redacts secrets from what it forwards.
   */
  readonly emit?: (chunk: string) => void;
  /**
   * Every secret the gate knows, given to built-in tools that work on workspace files only: a tool
   * that matches file contents (search_files, edit_file) works on the text with these redacted.
   */
  readonly hiddenSecrets?: readonly ResolvedSecret[];
  /** The secrets the tool's own manifest names (ownSecrets), resolved by the gate for this call. */
  readonly secrets?: readonly ResolvedSecret[];
}

/** What a tool's initialize() is given, once per tool process before its first call or health check. */
export interface ToolInitConfig {
  /** Absolute real path of the workspace root the tool is confined to. */
  readonly workspace: string;
}

/** How a tool is written: its declarations, zod schemas and the code that runs in a tool process. */
export interface ToolDefinition<I extends z.ZodType, O extends z.ZodType> {
  /** Unique name agents call the tool by. */
  name: string;
  /** Semantic version of the tool's interface. */
  version: string;
  /** What the tool does, for the model. */
  description: string;
  /** How much harm the tool can do. */
  tier: SecurityTier;
  /** Effects on the world; omitted or empty means pure. */
  sideEffects?: SideEffect[];
  /** Defaults to Deterministic. */
  determinism?: Determinism;
  /** Capabilities needed, with scopes. */
  capabilities?: Capability[];
  /** Overrides of the default bounds. */
  bounds?: Partial<ResourceBounds>;
  /** Input fields holding workspace paths. */
  pathArguments?: string[];
  /** Path arguments that name where the tool works (a cwd), not what it changes. */
  workingDirectoryArguments?: string[];
  /** Input fields holding URLs, whose hosts the gate checks against the net grants. */
  urlArguments?: string[];
  /** URLs reached whatever the input (an HTTP tool's endpoint), checked against the net grants like URL arguments. */
  endpoints?: string[];
  /** Secret names the tool's own declaration sends (an HTTP tool's headers), resolved by the gate per call. */
  ownSecrets?: string[];
  /** Whether execute() honours context.dryRun by returning a Preview. */
  supportsDryRun?: boolean;
  /** Argument values that raise one call's tier above the tool's (each above it, on a declared input field). */
  escalations?: TierEscalation[];
  /** 'refuse' for a tool whose result gives its input back: calls with a `$ENV.NAME` placeholder are rejected. */
  secrets?: SecretHandling;
  /** Input schema (an object schema). */
  input: I;
  /** Output schema. */
  output: O;
  /** The tool's code; runs only in a tool process, never in the gate. */
  execute(input: z.output<I>, context: ToolContext): Promise<unknown> | unknown;
  /**
   * Sets the tool up (seed 002), in the tool process, before anything else of it runs there; a
   * throw makes the tool unhealthy with the thrown message. Optional: most tools need nothing.
   */
  initialize?(config: ToolInitConfig): Promise<void> | void;
  /**
   * Says whether the tool can serve calls now (seed 002), in the tool process; the gate calls it at
   * start and periodically. Optional: without it a tool is healthy once initialize() succeeded.
   */
  healthCheck?(): Promise<HealthStatus> | HealthStatus;
}

/** A tool ready to register: its validated manifest next to its schemas and code. */
export interface DefinedTool {
  /** The manifest the gate trusts. */
  readonly manifest: ToolManifest;
  /** Input schema. */
  readonly input: z.ZodType;
  /** Output schema. */
  readonly output: z.ZodType;
  /** The tool's code (called by the tool process only). */
  readonly execute: (input: unknown, context: ToolContext) => Promise<unknown> | unknown;
  /** Its set-up, if it has one (called by the tool process only). */
  readonly initialize?: (config: ToolInitConfig) => Promise<void> | void;
  /** Its health check, if it has one (called by the tool process only). */
  readonly healthCheck?: () => Promise<HealthStatus> | HealthStatus;
}

/** Validates a tool definition and derives its manifest (JSON Schemas included). */
export function defineTool<I extends z.ZodType, O extends z.ZodType>(definition: ToolDefinition<I, O>): DefinedTool {
  const candidate = {
    name: definition.name,
    version: definition.version,
    description: definition.description,
    tier: definition.tier,
    sideEffects: [...new Set(definition.sideEffects ?? [])],
    determinism: definition.determinism ?? 'Deterministic',
    capabilities: definition.capabilities ?? [],
    bounds: { ...DEFAULT_BOUNDS, ...definition.bounds },
    pathArguments: definition.pathArguments ?? [],
    ...(definition.workingDirectoryArguments ? { workingDirectoryArguments: definition.workingDirectoryArguments } : {}),
    ...(definition.urlArguments ? { urlArguments: definition.urlArguments } : {}),
    ...(definition.endpoints ? { endpoints: definition.endpoints } : {}),
    ...(definition.ownSecrets ? { ownSecrets: definition.ownSecrets } : {}),
    supportsDryRun: definition.supportsDryRun ?? false,
    // Only when declared: the manifests (and approval hashes) of other tools stay as they were.
    ...(definition.escalations ? { escalations: definition.escalations } : {}),
    ...(definition.secrets ? { secrets: definition.secrets } : {}),
    inputSchema: toJsonSchema(definition.input, 'input', definition.name),
    outputSchema: toJsonSchema(definition.output, 'output', definition.name),
  };
  const parsed = ToolManifestSchema.safeParse(candidate);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new GateError(
      'EVALIDATION',
      `tool ${JSON.stringify(definition.name)}: ${issue.path.join('.') || 'manifest'}: ${issue.message}`,
    );
  }
  if (parsed.data.inputSchema.type !== 'object') {
    throw new GateError('EVALIDATION', `tool ${definition.name}: the input schema must be an object schema`);
  }
  const properties = (parsed.data.inputSchema.properties ?? {}) as Record<string, unknown>;
  for (const escalation of parsed.data.escalations ?? []) {
    if (!Object.hasOwn(properties, escalation.argument)) {
      throw new GateError('EVALIDATION', `tool ${definition.name}: escalation on ${escalation.argument}, which is no input field`);
    }
    if (tierLevel(escalation.tier) <= tierLevel(parsed.data.tier)) {
      throw new GateError('EVALIDATION', `tool ${definition.name}: an escalation must raise the tier above ${parsed.data.tier}`);
    }
  }
  if (typeof definition.execute !== 'function') {
    throw new GateError('EVALIDATION', `tool ${definition.name}: execute must be a function`);
  }
  for (const hook of ['initialize', 'healthCheck'] as const) {
    if (definition[hook] !== undefined && typeof definition[hook] !== 'function') {
      throw new GateError('EVALIDATION', `tool ${definition.name}: ${hook} must be a function when given`);
    }
  }
  // The hooks ride along for the tool process; the manifest (what the gate trusts) does not change.
  // All three are bound to the definition, so state initialize() keeps on `this` is there for the others.
  return Object.freeze({
    manifest: deepFreeze(parsed.data),
    input: definition.input,
    output: definition.output,
    execute: definition.execute.bind(definition) as DefinedTool['execute'],
    ...(definition.initialize ? { initialize: definition.initialize.bind(definition) } : {}),
    ...(definition.healthCheck ? { healthCheck: definition.healthCheck.bind(definition) } : {}),
  });
}

function toJsonSchema(schema: z.ZodType, io: 'input' | 'output', toolName: string): Record<string, unknown> {
  try {
    const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as Record<string, unknown>;
    return rest;
  } catch (error) {
    throw new GateError('EVALIDATION', `tool ${toolName}: its ${io} schema has no JSON Schema form: ${(error as Error).message}`);
  }
}

/** Freezes a JSON value all the way down, so what was checked is what is used. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value as object)) deepFreeze(member);
  }
  return value;
}
