import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { GateError } from '../../../shared/errors';
import { writeFileAtomically } from '../../state/atomicFile';

/** The file the reviews of the tools home's manifests are kept in. */
export function toolReviewsFile(home: string): string {
  return join(home, 'tool-reviews.json');
}

const Sha256Schema = z.string().regex(/^[0-9a-f]{64}$/, 'a hash is 64 hex digits');

/** What a person trusted of one manifest tool: its manifest file and the code file it runs, by hash. */
export const ToolPinSchema = z.object({
  /** The tool's name. */
  name: z.string(),
  /** The manifest file reviewed. */
  manifestPath: z.string(),
  /** SHA-256 of the manifest file's bytes as reviewed. */
  manifestSha256: Sha256Schema,
  /** The program or module it runs (absent for an HTTP tool). */
  codeFile: z.string().optional(),
  /** SHA-256 of that file as reviewed. */
  codeSha256: Sha256Schema.optional(),
  /** When (ISO 8601). */
  reviewedAt: z.string(),
});
export type ToolPin = z.infer<typeof ToolPinSchema>;

const ToolReviewsFileSchema = z.object({ version: z.literal(1), tools: z.array(ToolPinSchema) });

/** The pins of the tools home, read fresh on every question (a review made in a terminal counts at once). */
export function readToolPins(home: string): ToolPin[] {
  const file = toolReviewsFile(home);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new GateError('EPERMISSION', `${file} cannot be read (${(error as NodeJS.ErrnoException).code}); make it readable by you`);
  }
  let parsed: z.ZodSafeParseResult<z.infer<typeof ToolReviewsFileSchema>>;
  try {
    parsed = ToolReviewsFileSchema.safeParse(JSON.parse(text));
  } catch (error) {
    throw refused(file, `it is not JSON (${(error as Error).message})`);
  }
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw refused(file, `${issue.path.join('.') || 'the file'}: ${issue.message}`);
  }
  return parsed.data.tools;
}

/** Saves a pin, replacing the tool's earlier one (mode 0600, written atomically). */
export function saveToolPin(home: string, pin: ToolPin): void {
  const tools = readToolPins(home).filter((earlier) => earlier.name !== pin.name);
  tools.push(pin);
  mkdirSync(home, { recursive: true, mode: 0o700 });
  writeFileAtomically(toolReviewsFile(home), `${JSON.stringify({ version: 1, tools }, null, 2)}\n`, 0o600);
}

function refused(file: string, problem: string): GateError {
  return new GateError(
    'EVALIDATION',
    `${file} is not a valid tool reviews file (${problem}); it was left as it is. Fix it by hand, or move it aside and review each tool again with \`toolgate tools review NAME\``,
  );
}
