import { existsSync, realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { GateError } from '../../shared/errors';
import { describePolicyProblem, PolicyModeSchema, type PolicyMode } from '../../shared/policy';
import type { ToolManifest } from '../../shared/manifest';
import { PolicyEngine } from '../policy/policyEngine';
import { describeSource } from '../policy/policyDecisions';
import { trustProjectFile } from '../policy/projectTrust';
import type { PolicyDecision } from '../policy/tierPolicy';
import { readSettingsFile, settingsPath } from '../settings/settings';
import { readGateAddress } from '../state/stateFolder';
import { GATE_TOOL_DEFINITIONS } from '../tools/gateTools';
import { loadToolModule } from '../tools/loadToolModule';
import { flag, UsageError, type ParsedArgs } from './argv';
import { parseCommandLine, subcommandOf } from './commandSpec';
import { commandSpec } from './commandSpecs';
import type { Io } from './commands';
import { countOf } from '../../shared/plural';

/** Exit codes of `policy check`: what a script branches on. */
const EXIT_FOR: Record<PolicyDecision['decision'], number> = { allow: 0, ask: 1, deny: 2 };

/**
 * The workspace to judge for, and where it came from: --workspace, else the running gate's (what its
 * agents' calls are judged against), else settings.json's, else the current folder.
 */
function workspaceOf(args: ParsedArgs, fromSettings: string | undefined, home: string): { workspace: string; from: string } {
  const given = flag(args, 'workspace');
  if (given !== undefined) return { workspace: resolve(given), from: 'given with --workspace' };
  try {
    return { workspace: readGateAddress(home).workspace, from: "the running gate's" };
  } catch {
    // No gate runs for this state folder: the one it would start with.
  }
  return fromSettings !== undefined ? { workspace: fromSettings, from: 'from settings.json' } : { workspace: process.cwd(), from: 'the current folder' };
}

/** The engine as the gate would build it here: same files, same tools, same workspace and mode. */
async function engineFor(args: ParsedArgs, io: Io): Promise<PolicyEngine> {
  const settings = readSettingsFile(settingsPath(io.home));
  const { workspace, from } = workspaceOf(args, settings.workspace, io.home);
  if (!existsSync(workspace)) throw new GateError('ENOTFOUND', `the workspace ${workspace} (${from}) does not exist; pass --workspace DIR`);
  if (from !== 'given with --workspace' && from !== 'the running gate\'s') io.err(`note: no gate is running for ${io.home}; judging for the workspace ${workspace} (${from}); pass --workspace DIR to choose another\n`);
  const modeFlag = flag(args, 'mode');
  if (modeFlag !== undefined && !PolicyModeSchema.safeParse(modeFlag).success) throw new UsageError(`--mode ${modeFlag}: say strict, standard or permissive`);
  const tools = new Map<string, ToolManifest>(GATE_TOOL_DEFINITIONS.map((tool) => [tool.manifest.name, tool.manifest]));
  for (const module of [...(settings.toolModules ?? []), ...(args.flags.get('tools') ?? []).map((path) => resolve(path))]) {
    for (const tool of await loadToolModule(module)) tools.set(tool.manifest.name, tool.manifest);
  }
  return PolicyEngine.create({
    tools: (name) => tools.get(name),
    workspace: realpathSync(workspace),
    home: resolve(io.home),
    mode: (modeFlag ?? settings.mode ?? 'standard') as PolicyMode,
  });
}

/** Prints the files refused whole and the notices; returns whether any file was refused. */
function printProblems(engine: PolicyEngine, io: Io): boolean {
  const status = engine.status();
  for (const problem of status.problems) io.err(`refused: ${describePolicyProblem(problem)}\n`);
  for (const notice of status.notices) io.err(`note: ${notice}\n`);
  return status.problems.length > 0;
}

async function check(args: ParsedArgs, io: Io): Promise<number> {
  const [, tool, json = '{}', ...extra] = args.positionals;
  if (tool === undefined || extra.length > 0) throw new UsageError('policy check takes TOOL and its arguments as one JSON object, e.g. toolgate policy check shell_exec \'{"command":"git push"}\'');
  let input: unknown;
  try {
    input = JSON.parse(json);
  } catch (error) {
    throw new UsageError(`the arguments are not JSON (${(error as Error).message}); write one object, e.g. '{"path":"src/a.ts"}'`);
  }
  const engine = await engineFor(args, io);
  try {
    const manifest = engine.tool(tool);
    if (!manifest) throw new UsageError(`${JSON.stringify(tool)} is not a tool of this gate; \`toolgate tools\` lists them (add --tools MODULE for your own)`);
    const decided = engine.decide(manifest, input, await engine.prepare(manifest, input));
    if (flag(args, 'json') === 'true') io.out(`${JSON.stringify(decided, null, 2)}\n`);
    else {
      const provenance = decided.provenance;
      const rows: [string, string | undefined][] = [
        ['decision', decided.decision],
        ['rule', provenance?.rule ?? decided.rule],
        ['layer', provenance?.source.layer ?? (decided.rule.startsWith('tier:') ? 'tier default' : undefined)],
        ['source', provenance ? describeSource(provenance.source) : undefined],
        ['matched', provenance?.matched],
        ['mode', decided.mode],
        ['reason', decided.reason],
        // Beside the decision, not only on stderr: a refused file's denies are not in force either.
        ['refused', engine.status().problems.length > 0 ? `${[...new Set(engine.status().problems.map((problem) => problem.file))].join(', ')}: none of its rules count until it is fixed (why: above, on stderr)` : undefined],
      ];
      io.out(`${rows.filter(([, value]) => value !== undefined).map(([label, value]) => `${label.padEnd(9)}${value}`).join('\n')}\n`);
    }
    printProblems(engine, io);
    return EXIT_FOR[decided.decision];
  } finally {
    engine.close();
  }
}

async function list(args: ParsedArgs, io: Io): Promise<number> {
  const engine = await engineFor(args, io);
  try {
    const rules = engine.rulesInForce();
    if (flag(args, 'json') === 'true') {
      io.out(`${JSON.stringify({ status: engine.status(), files: engine.files, rules: rules.map(({ text, effect, source, reason }) => ({ rule: text, effect, source, ...(reason ? { reason } : {}) })) }, null, 2)}\n`);
    } else {
      io.out(`mode ${engine.mode}; files: managed ${engine.files.managed}, user ${engine.files.user}, project ${engine.files.project}\n`);
      if (rules.length === 0) io.out('no rules: the tier defaults decide every call\n');
      for (const rule of rules) io.out(`${rule.effect.padEnd(6)}${rule.text}  — ${describeSource(rule.source)}${rule.reason ? `: ${rule.reason}` : ''}\n`);
    }
    return printProblems(engine, io) ? 1 : 0;
  } finally {
    engine.close();
  }
}

async function test(args: ParsedArgs, io: Io): Promise<number> {
  const engine = await engineFor(args, io);
  try {
    const refused = printProblems(engine, io);
    const rules = engine.rulesInForce().filter((rule) => rule.source.file !== undefined);
    io.out(refused ? 'some policy files were refused (above): fix them, then run toolgate policy test again\n' : `${countOf(rules.length, 'rule')} loaded; every example agrees with its rule\n`);
    return refused ? 1 : 0;
  } finally {
    engine.close();
  }
}

async function trust(args: ParsedArgs, io: Io): Promise<number> {
  const engine = await engineFor(args, io);
  try {
    const file = engine.files.project;
    if (!existsSync(file)) throw new GateError('ENOTFOUND', `there is no project policy at ${file}; nothing to trust`);
    const hash = trustProjectFile(resolve(io.home), file);
    await engine.reload();
    io.out(`trusted ${file} (sha256 ${hash}); it is ignored again as soon as it changes\n`);
    for (const rule of engine.rulesInForce().filter((candidate) => candidate.source.layer === 'project')) {
      io.out(`  ${rule.effect.padEnd(6)}${rule.text}  — line ${rule.source.line}${rule.reason ? `: ${rule.reason}` : ''}\n`);
    }
    return printProblems(engine, io) ? 1 : 0;
  } finally {
    engine.close();
  }
}

/**
 * `toolgate policy check TOOL JSON | list | test | trust`: the policy the gate would apply here,
 * read from the same files without a running gate. check exits 0 allow, 1 ask, 2 deny.
 */
export async function policyCommand(argv: string[], io: Io): Promise<number> {
  const subSpec = subcommandOf(commandSpec('policy'), argv);
  if (!subSpec) throw new UsageError('policy takes check TOOL JSON, list, test or trust');
  const args = parseCommandLine(subSpec, argv, `policy ${subSpec.name}`);
  const sub = subSpec.name;
  if (sub === 'check') return check(args, io);
  if (sub === 'list') return list(args, io);
  if (sub === 'test') return test(args, io);
  if (sub === 'trust') return trust(args, io);
  throw new UsageError('policy takes check TOOL JSON, list, test or trust');
}
