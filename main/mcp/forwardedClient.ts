import { z } from 'zod';

/**
 * `_meta` key under which `toolgate mcp` (the stdio bridge) passes on the name and version its own
 * client declared, so the gate can name the agent behind the bridge rather than the bridge alone.
 */
export const FORWARDED_CLIENT_META = 'toolgate/forwardedClient';

const ForwardedClientSchema = z.object({ name: z.string().max(1000), version: z.string().max(1000) });

/**
 * The client a bridge forwarded, when the `_meta` value is one; anything else is ignored. Any client
 * with the MCP token can send it, so the gate shows it only ahead of the session's own client (`via`).
 */
export function forwardedClient(value: unknown): { name: string; version: string } | undefined {
  const parsed = ForwardedClientSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}
