import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ToolSourceInfo } from '../../../shared/toolSources';
import { fileSignature } from '../../state/fileChanges';
import { readManifestTool, type LoadedManifestTool } from './manifestFile';
import { fileSha256, pinnedModule } from './sourcePins';
import { readToolPins, toolReviewsFile, type ToolPin } from './toolReviews';

/** The folder of a state folder's tool manifests: `$TOOLGATE_HOME/tools/*.json`. */
export function toolsFolder(home: string): string {
  return join(home, 'tools');
}

/** One manifest of the tools home as the gate found it. */
export interface HomeTool {
  path: string;
  /** The tool, when the manifest could be read. */
  loaded?: LoadedManifestTool;
  /** SHA-256 of its code file now. */
  codeSha256?: string;
  state: 'trusted' | 'unreviewed' | 'changed' | 'invalid';
  /** Why it may not run (every state but trusted): what is wrong or what changed, and the command that fixes it. */
  refusal?: string;
  /** The module path a tool process loads it by (pinned when trusted). */
  module: string;
}

/** The manifest files in the tools home, sorted. */
export function toolManifestPaths(home: string): string[] {
  try {
    return readdirSync(toolsFolder(home))
      .filter((name) => name.endsWith('.json') && !name.startsWith('.'))
      .sort()
      .map((name) => join(toolsFolder(home), name));
  } catch {
    return [];
  }
}

/**
 * Reads every manifest of the tools home and judges each against its pin: trusted when the
 * manifest and the program or module it names have the hashes a person reviewed; otherwise
 * refused, naming what changed and the review command.
 */
export async function scanToolsHome(home: string): Promise<HomeTool[]> {
  const pins = readToolPins(home);
  const found: HomeTool[] = [];
  for (const path of toolManifestPaths(home)) {
    let loaded: LoadedManifestTool;
    try {
      loaded = await readManifestTool(path);
    } catch (error) {
      found.push({ path, state: 'invalid', refusal: (error as Error).message, module: path });
      continue;
    }
    let codeSha256: string | undefined;
    try {
      codeSha256 = loaded.codeFile ? fileSha256(loaded.codeFile) : undefined;
    } catch (error) {
      found.push({ path, loaded, state: 'invalid', refusal: `${loaded.codeFile} cannot be read: ${(error as Error).message}`, module: path });
      continue;
    }
    const pin = pins.find((candidate) => candidate.name === loaded.manifest.name);
    found.push({ path, loaded, ...(codeSha256 ? { codeSha256 } : {}), ...judge(pin, path, loaded, codeSha256) });
  }
  return found;
}

function judge(pin: ToolPin | undefined, path: string, loaded: LoadedManifestTool, codeSha256: string | undefined): Pick<HomeTool, 'state' | 'refusal' | 'module'> {
  const name = loaded.manifest.name;
  const review = `review it with \`toolgate tools review ${name}\``;
  if (!pin) return { state: 'unreviewed', refusal: `${name} (${path}) was never reviewed, so it may not run; ${review}`, module: path };
  const changed: string[] = [];
  if (pin.manifestPath !== path) changed.push(`its manifest is now ${path}, not ${pin.manifestPath}`);
  else if (pin.manifestSha256 !== loaded.manifestSha256) changed.push(`its manifest ${path} changed (sha256 ${loaded.manifestSha256}, reviewed ${pin.manifestSha256})`);
  if (pin.codeFile !== loaded.codeFile) changed.push(`it now runs ${loaded.codeFile ?? 'no file'}, not ${pin.codeFile ?? 'no file'}`);
  else if (pin.codeSha256 !== codeSha256) changed.push(`its ${loaded.manifest.source.kind === 'wasm' ? 'module' : 'program'} ${loaded.codeFile} changed (sha256 ${codeSha256}, reviewed ${pin.codeSha256})`);
  if (changed.length > 0) return { state: 'changed', refusal: `${name} changed since it was reviewed: ${changed.join('; ')}; ${review}`, module: path };
  return { state: 'trusted', module: pinnedModule(path, { manifest: loaded.manifestSha256, ...(codeSha256 ? { code: codeSha256 } : {}) }) };
}

/** What the Tools view shows of a manifest tool: its source, hashes, review and bounds. */
export function sourceInfo(tool: HomeTool): ToolSourceInfo | undefined {
  if (!tool.loaded) return undefined;
  const { manifest, manifestSha256, codeFile } = tool.loaded;
  return {
    kind: manifest.source.kind,
    manifestPath: tool.path,
    manifestSha256,
    ...(codeFile ? { codeFile } : {}),
    ...(tool.codeSha256 ? { codeSha256: tool.codeSha256 } : {}),
    review: tool.state,
    ...(tool.refusal ? { refusal: tool.refusal } : {}),
  };
}

/** What the watcher compares: the folder's manifests, the files they run and the reviews file, as seen from outside. */
export function toolsHomeSignature(home: string, tools: readonly HomeTool[]): string {
  const files = [...toolManifestPaths(home), ...tools.flatMap((tool) => tool.loaded?.codeFile ?? []), toolReviewsFile(home)];
  return files.map((file) => `${file}=${fileSignature(file)}`).join('\n');
}
