import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The fixture whose one tool, ring_bell, always asks a person and needs no dry run: prompts, cheaply. */
export const ASK_FIRST = fileURLToPath(new URL('../../test/fixtures/tools/askFirst.mjs', import.meta.url));

/** A call that waits for a person; its result once answered. */
export function ringBell(agent: Client, label: string, options: { signal?: AbortSignal } = {}): Promise<CallToolResult> {
  return agent.callTool({ name: 'ring_bell', arguments: { label } }, undefined, options) as Promise<CallToolResult>;
}
