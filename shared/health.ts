import { z } from 'zod';
import { ToolManifestSchema, SecurityTierSchema } from './manifest';
import { ToolSourceInfoSchema } from './toolSources';

/**
 * What a tool's healthCheck() answers (seed 002). The seed's own example says `error` where the
 * seed's type says nothing; Toolgate names the field `message` (it is said of healthy tools too)
 * and parseHealthReport still reads a seed-style `error`.
 */
export const HealthStatusSchema = z.object({
  /** Whether the tool can serve calls now. */
  healthy: z.boolean(),
  /** Why not (or a note when healthy), in words a person can act on. */
  message: z.string().optional(),
});
export type HealthStatus = z.infer<typeof HealthStatusSchema>;

/** The longest health message kept; a tool could otherwise flood the console and every refusal. */
export const HEALTH_MESSAGE_MAX = 500;

/**
 * Reads what a healthCheck() returned, which is the tool's word and not to be trusted: a seed-style
 * `{ healthy: false, error }` counts, a long message is cut, and anything else is an unhealthy answer
 * saying why (fail closed).
 */
export function parseHealthReport(value: unknown): HealthStatus {
  const candidate = value as { healthy?: unknown; message?: unknown; error?: unknown } | null;
  if (typeof candidate !== 'object' || candidate === null || typeof candidate.healthy !== 'boolean') {
    return { healthy: false, message: 'its health check answered something other than { healthy: boolean, message?: string }' };
  }
  const said = typeof candidate.message === 'string' ? candidate.message : typeof candidate.error === 'string' ? candidate.error : undefined;
  const message = said === undefined ? undefined : said.length > HEALTH_MESSAGE_MAX ? `${said.slice(0, HEALTH_MESSAGE_MAX)}…` : said;
  if (candidate.healthy) return message ? { healthy: true, message } : { healthy: true };
  return { healthy: false, message: message || 'its health check said it is unhealthy and gave no reason' };
}

/** Where tools run: inside a bubblewrap OS sandbox, or as plain processes of the user. */
export const SandboxKindSchema = z.enum(['bubblewrap', 'none']);
export type SandboxKind = z.infer<typeof SandboxKindSchema>;

/** Whether this machine gives tools an OS sandbox; without one, policy treats each tool one tier higher. */
export const SandboxFactSchema = z.object({
  /** The sandbox tools run in. */
  kind: SandboxKindSchema,
  /** Why there is none (e.g. "bwrap is not installed"), or a note about the one there is. */
  reason: z.string().optional(),
});
export type SandboxFact = z.infer<typeof SandboxFactSchema>;

/** Where a tool's health stands: not checked yet, or what the latest check found. */
export const HealthStateSchema = z.enum(['unknown', 'healthy', 'unhealthy']);
export type HealthState = z.infer<typeof HealthStateSchema>;

/** A tool's health as the gate last found it. */
export const ToolHealthSchema = z.object({
  /** Unknown until the first check ends. */
  state: HealthStateSchema,
  /** What the check said: the tool's own message, or why the check itself failed. */
  message: z.string().optional(),
  /** When the latest check ended (ISO 8601). */
  checkedAt: z.string().optional(),
});
export type ToolHealth = z.infer<typeof ToolHealthSchema>;

/** A registered tool as the console's Tools view shows it. */
export const ToolStatusSchema = z.object({
  /** Unique name agents call the tool by. */
  name: ToolManifestSchema.shape.name,
  /** Semantic version of the tool's interface. */
  version: ToolManifestSchema.shape.version,
  /** What the tool does, as written for the model. */
  description: ToolManifestSchema.shape.description,
  /** The tier the tool declares in its manifest. */
  tier: SecurityTierSchema,
  /** The tier policy actually applies (higher than declared, e.g. when there is no OS sandbox). */
  effectiveTier: SecurityTierSchema,
  /** Why effectiveTier is above tier; absent when they are equal. */
  tierRaisedBecause: z.string().optional(),
  /** Every effect the tool may have; empty means pure. */
  sideEffects: ToolManifestSchema.shape.sideEffects,
  /** Capabilities the tool needs, each with its scope. */
  capabilities: ToolManifestSchema.shape.capabilities,
  /** Hard limits of one call (timeout, memory, output, network). */
  bounds: ToolManifestSchema.shape.bounds,
  /** The sandbox the tool's calls run in. */
  sandbox: SandboxKindSchema,
  /** The latest health check's verdict. */
  health: ToolHealthSchema,
  /** Whether calls can reach it now; false once a health check found it unhealthy. */
  available: z.boolean(),
  /** For a manifest tool of the tools home: its source, hashes and review. */
  source: ToolSourceInfoSchema.optional(),
});
export type ToolStatus = z.infer<typeof ToolStatusSchema>;
