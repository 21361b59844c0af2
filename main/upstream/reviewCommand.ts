import { GateError } from '../../shared/errors';
import { terminalText } from '../../shared/inertText';
import { SecurityTierSchema, tierLevel, type SecurityTier } from '../../shared/manifest';
import type { ToolClass, UpstreamServerConfig, UpstreamToolDefinition } from '../../shared/upstream';
import { detectSandbox } from '../hosts/sandbox';
import { secretForServer } from '../secrets/secretBindings';
import type { SecretProvider } from '../secrets/secretProvider';
import { GATE_TOOL_DEFINITIONS } from '../tools/gateTools';
import { definitionFindings } from './definitionFindings';
import { launchHash } from './definitionPin';
import { openReviewStore } from './reviews';
import { reviewReport } from './reviewReport';
import { readServersFile } from './serversFile';
import { createUpstreamConnection } from './upstreamConnection';
import { launchText } from './upstreamCallViews';
import type { PinState } from './types';
import { countOf, nounFor } from '../../shared/plural';

/** What `toolgate servers review` is given. */
export interface ReviewCommandOptions {
  home: string;
  server: string;
  /** Trust without asking (scripts), up to ELEVATED unless trustAll; refused while a definition has findings, unless acceptFindings. */
  yes: boolean;
  acceptFindings: boolean;
  /** With yes: trust RESTRICTED and DANGEROUS tools too (otherwise they are left for a person). */
  trustAll?: boolean;
  /** The tier every tool trusted now is judged at, instead of the suggested (or earlier) class's. */
  tier?: string;
  secrets: SecretProvider;
  out(text: string): void;
  /** Asks the person a yes/no question at the terminal; undefined when there is no terminal to ask at. */
  ask?: (question: string) => Promise<boolean>;
}

/**
 * `toolgate servers review NAME`: shows the server's exact launch and asks before starting it (that
 * approval also lets the gate start it), lists each tool's definition, class and findings (a changed
 * one beside the definition trusted before), then trusts the unreviewed and changed tools as shown.
 * Exit 0 trusted (or nothing to trust), 1 the person said no, 2 usage or setup.
 */
export async function reviewCommand(options: ReviewCommandOptions): Promise<number> {
  const tier = options.tier === undefined ? undefined : parseTier(options.tier);
  const config = serverConfig(options.home, options.server);
  const store = openReviewStore(options.home);
  const launch = launchHash(config);
  options.out(launchLines(config));
  if (store.approvedLaunch(config.name) !== launch) {
    if (!(await confirm(options, `Start ${config.name} now to read its tools? This also lets the gate start it.`))) {
      options.out(`${config.name} was not started; nothing was trusted\n`);
      return 1;
    }
    store.approveLaunch(config.name, launch);
  }
  const sandbox = detectSandbox('auto');
  const connection = createUpstreamConnection(config, { home: options.home, resolveSecret: (name) => secretForServer(options.secrets, name, config.name), sandbox });
  let definitions: UpstreamToolDefinition[];
  try {
    await connection.start();
    definitions = connection.tools();
    for (const refused of connection.state().refused) options.out(`refused: ${terminalText(refused.name)}: ${terminalText(refused.message)}\n`);
  } finally {
    await connection.close();
  }
  const findings = definitionFindings(config.name, definitions, GATE_TOOL_DEFINITIONS.map((tool) => tool.manifest.name));
  const entries = definitions.map((definition) => ({
    definition,
    pin: store.pinState(config.name, definition),
    findings: findings.filter((finding) => finding.tool === definition.name),
  }));
  options.out(reviewReport(config.name, entries));
  const open = entries.filter((entry) => entry.pin.state !== 'trusted');
  if (open.length === 0) {
    options.out(`\n${entries.length === 1 ? 'the one tool' : `all ${countOf(entries.length, 'tool')}`} of ${config.name} ${nounFor(entries.length, 'is', 'are')} trusted as they are\n`);
    return 0;
  }
  const flagged = open.reduce((count, entry) => count + entry.findings.length, 0);
  if (flagged > 0 && options.yes && !options.acceptFindings) {
    throw new GateError('EVALIDATION', `${countOf(flagged, 'finding')} in the tools to trust; read them above, then run again with --accept-findings to trust them anyway`);
  }
  const question = `Trust ${countOf(open.length, 'tool')} of ${config.name} as shown${flagged > 0 ? `, despite ${countOf(flagged, 'finding')}` : ''}?`;
  if (!(await confirm(options, question))) {
    options.out('nothing was trusted\n');
    return 1;
  }
  const classed = open.map((entry) => ({ definition: entry.definition, class: classFor(entry.pin, tier) }));
  // Unattended, a script vouches for tools up to ELEVATED; one that can do more waits for a person (or --trust-all).
  const unattended = options.yes && !options.trustAll;
  const trusted = classed.filter((entry) => !unattended || tierLevel(entry.class.tier) <= tierLevel(YES_TRUSTS_UP_TO));
  const held = classed.filter((entry) => !trusted.includes(entry));
  const named = (entries: typeof classed) => entries.map((entry) => `${terminalText(entry.definition.name)} (${entry.class.tier})`).join(', ');
  if (trusted.length > 0) {
    store.trust(config.name, trusted);
    options.out(`trusted ${named(trusted)}; a running gate applies it within a second\n`);
  }
  if (held.length > 0) {
    options.out(`not trusted, as --yes trusts up to ${YES_TRUSTS_UP_TO}: ${named(held)}; trust them in the Tools view, or run again with --yes --trust-all\n`);
  }
  return 0;
}

/** The highest tier `--yes` trusts on its own. */
const YES_TRUSTS_UP_TO: SecurityTier = 'ELEVATED';

function serverConfig(home: string, name: string): UpstreamServerConfig {
  const { servers, refused } = readServersFile(home);
  const config = servers.find((server) => server.name === name);
  if (config) return config;
  const bad = refused.find((server) => server.name === name);
  if (bad) throw new GateError('EVALIDATION', `${name} is refused in servers.json: ${bad.field}: ${bad.message}`);
  const known = servers.map((server) => server.name);
  throw new GateError('ENOTFOUND', `no server named ${name} in servers.json${known.length > 0 ? ` (it has ${known.join(', ')})` : ''}; add it, or import one with toolgate servers import`);
}

/** A server's exact launch as the terminal shows it: a stdio server's command line and its sandbox, or an HTTP server's URL. */
export function launchLines(config: UpstreamServerConfig): string {
  return `${config.name} ${config.transport === 'stdio' ? `starts with: ${terminalText(launchText(config))}\n  ${sandboxLine(config)}` : `is reached at ${terminalText(launchText(config))}`}\n`;
}

function sandboxLine(config: Extract<UpstreamServerConfig, { transport: 'stdio' }>): string {
  const { network, writable, readable, env } = config.sandbox;
  const list = (items: string[], none: string) => (items.length > 0 ? items.map((item) => terminalText(item)).join(', ') : none);
  return `sandbox: network ${network ? 'on' : 'off'}, writes ${list(writable, 'nothing')}, also reads ${list(readable, 'nothing')}, gets from the gate's environment ${list(['PATH', 'HOME', 'LANG', ...env], '')}`;
}

/** The class a tool is trusted as: the tier asked for over the earlier review's class (changed) or the suggestion (unreviewed). */
function classFor(pin: PinState, tier: SecurityTier | undefined): ToolClass {
  const base = pin.state === 'changed' ? pin.review.class : pin.state === 'unreviewed' ? pin.suggested : pin.review.class;
  return tier ? { ...base, tier } : base;
}

function parseTier(written: string): SecurityTier {
  const parsed = SecurityTierSchema.safeParse(written.toUpperCase());
  if (!parsed.success) throw new GateError('EVALIDATION', `--tier takes ${SecurityTierSchema.options.join(', ')}, not ${JSON.stringify(written)}`);
  return parsed.data;
}

async function confirm(options: ReviewCommandOptions, question: string): Promise<boolean> {
  if (options.yes) return true;
  if (!options.ask) throw new GateError('EVALIDATION', `${question} There is no terminal to ask at: run it in a terminal, or with --yes`);
  return options.ask(question);
}
