import { z } from 'zod';

/** Where a manifest tool of the tools home comes from, for the Tools view. */
export const ToolSourceInfoSchema = z.object({
  /** What runs it: a WebAssembly module, a program, or an HTTP endpoint. */
  kind: z.enum(['wasm', 'subprocess', 'http']),
  /** The manifest file ($TOOLGATE_HOME/tools/NAME.json). */
  manifestPath: z.string(),
  /** SHA-256 of the manifest file as it is now. */
  manifestSha256: z.string(),
  /** The program or module it runs (absent for HTTP). */
  codeFile: z.string().optional(),
  /** SHA-256 of that file as it is now. */
  codeSha256: z.string().optional(),
  /** Where it stands against its review: trusted (as reviewed), unreviewed, changed since review, or invalid. */
  review: z.enum(['trusted', 'unreviewed', 'changed', 'invalid']),
  /** Why it may not run, and the command that fixes it (every state but trusted). */
  refusal: z.string().optional(),
});
export type ToolSourceInfo = z.infer<typeof ToolSourceInfoSchema>;
