import { GateError } from '../../shared/errors';
import { terminalText } from '../../shared/inertText';
import { scanToolsHome, toolsFolder, type HomeTool } from '../tools/sources/toolsHome';
import { saveToolPin } from '../tools/sources/toolReviews';
import { UsageError, flag, type ParsedArgs } from './argv';
import type { Io } from './commands';
import { askAtTerminal } from './serverCommands';

/**
 * `toolgate tools review NAME`: shows a tools-home manifest tool as the gate would run it (its
 * source, declarations, bounds, and the hashes of its manifest and of the file it runs, beside
 * what was reviewed before), then pins those hashes. Exit 0 trusted, 1 the person said no, 2 refused.
 */
export async function toolsReview(args: ParsedArgs, io: Io): Promise<number> {
  const [, name, extra] = args.positionals;
  if (!name) throw new UsageError(`tools review needs the NAME of a tool in ${toolsFolder(io.home)}`);
  if (extra !== undefined) throw new UsageError(`tools review takes one NAME, not also ${JSON.stringify(extra)}`);
  const found = await scanToolsHome(io.home);
  const tool = found.find((candidate) => candidate.loaded?.manifest.name === name);
  if (!tool?.loaded) {
    const broken = found.filter((candidate) => !candidate.loaded).map((candidate) => `\n  ${candidate.path}: ${candidate.refusal}`);
    const known = found.flatMap((candidate) => candidate.loaded?.manifest.name ?? []);
    throw new GateError('ENOTFOUND', `no tool named ${name} in ${toolsFolder(io.home)}${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}${broken.join('')}`);
  }
  io.out(describe(tool));
  if (tool.state === 'trusted') {
    io.out(`\n${name} is trusted as it is\n`);
    return 0;
  }
  const yes = flag(args, 'yes') !== undefined;
  const question = `Trust ${name} as shown?`;
  if (!yes && !process.stdin.isTTY) throw new GateError('EVALIDATION', `${question} There is no terminal to ask at: run it in a terminal, or with --yes`);
  if (!yes && !(await askAtTerminal(question))) {
    io.out('nothing was trusted\n');
    return 1;
  }
  saveToolPin(io.home, {
    name,
    manifestPath: tool.path,
    manifestSha256: tool.loaded.manifestSha256,
    ...(tool.loaded.codeFile ? { codeFile: tool.loaded.codeFile } : {}),
    ...(tool.codeSha256 ? { codeSha256: tool.codeSha256 } : {}),
    reviewedAt: new Date().toISOString(),
  });
  io.out(`trusted ${name}; a running gate applies it within a second\n`);
  return 0;
}

/** The tool as the terminal shows it, every value made inert. */
function describe(tool: HomeTool): string {
  const { manifest, manifestSha256, codeFile } = tool.loaded!;
  const source = manifest.source as Record<string, unknown>;
  const shown = (value: unknown) => terminalText(typeof value === 'string' ? value : JSON.stringify(value));
  const lines = [
    `${shown(manifest.name)} (${tool.path}): a ${manifest.source.kind} tool, ${manifest.tier}`,
    `  ${shown(manifest.description)}`,
    `  side effects: ${manifest.sideEffects.join(', ') || 'none'}; capabilities: ${manifest.capabilities.join(', ') || 'none'}; bounds: ${shown(manifest.bounds)}`,
    ...Object.entries(source)
      .filter(([key]) => key !== 'kind')
      .map(([key, value]) => `  source.${key}: ${shown(value)}`),
    `  manifest sha256 ${manifestSha256}`,
    ...(codeFile ? [`  ${manifest.source.kind === 'wasm' ? 'module' : 'program'} ${codeFile} sha256 ${tool.codeSha256}`] : []),
  ];
  if (tool.refusal) lines.push(`  now: ${tool.refusal}`);
  return `${lines.join('\n')}\n`;
}
