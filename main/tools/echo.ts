import { z } from 'zod';
import { defineTool } from '../registry/defineTool';

/** Returns its input unchanged: the smallest round trip through the gate. */
export const echoTool = defineTool({
  name: 'echo',
  version: '1.0.0',
  description: 'Returns the given text unchanged. Useful to check that the gate is reachable.',
  tier: 'SAFE',
  determinism: 'Pure',
  // No secrets: it returns its text, so a secret sent to it would come straight back.
  secrets: 'refuse',
  input: z.object({ text: z.string().max(1_000_000).describe('Text to send back') }).strict(),
  output: z.object({ text: z.string().describe('The same text') }),
  execute: (input) => ({ text: input.text }),
});
