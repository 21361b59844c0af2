import { z } from 'zod';
import { blake3Hex } from '../../shared/hash';
import { defineTool } from '../registry/defineTool';

/** BLAKE3 of a UTF-8 string. */
export const hashTool = defineTool({
  name: 'hash',
  version: '1.0.0',
  description: 'Computes the BLAKE3 hash of the given UTF-8 text and returns it as 64 hex digits.',
  tier: 'SAFE',
  determinism: 'Pure',
  // No secrets: a secret's digest would let the agent check guesses at it offline.
  secrets: 'refuse',
  input: z.object({ text: z.string().max(4 * 1024 * 1024).describe('Text to hash (UTF-8)') }).strict(),
  output: z.object({
    algorithm: z.literal('blake3').describe('The hash function used'),
    hex: z.string().regex(/^[0-9a-f]{64}$/).describe('The hash, lowercase hex'),
  }),
  execute: (input) => ({ algorithm: 'blake3' as const, hex: blake3Hex(input.text) }),
});
