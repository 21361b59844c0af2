import { unwatchFile, watchFile } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GateError } from '../../shared/errors';
import { tierLevel, type ToolManifest } from '../../shared/manifest';
import type { PolicyLayer, PolicyMode, PolicyProblem, PolicyStatus, RuleEffect } from '../../shared/policy';
import { callParts, prepareFacts, type CallFacts } from './callParts';
import { compileRule, type CompiledRule, type ToolLookup } from './compiledRule';
import { judgeCall, type Judgement } from './judgeCall';
import { decisionFromRule, modeDefault } from './policyDecisions';
import { protectedPathOf } from './pathRule';
import { loadPolicyFile, type PolicyContext, type RefusedScope } from './policyFile';
import { isTrusted, trustFile } from './projectTrust';
import { RuleError } from './ruleText';
import { tierPolicy, type Policy, type PolicyDecision } from './tierPolicy';

/** Where the managed policy lives unless told otherwise: the machine's administrator writes it. */
export const MANAGED_POLICY_FILE = '/etc/toolgate/policy.json';

/** The policy files of a gate, by layer. */
export function policyFiles(options: { home: string; workspace: string; managedFile?: string }): Record<'managed' | 'user' | 'project', string> {
  return {
    // TOOLGATE_MANAGED_POLICY moves it (for packaging and tests); an agent cannot set the gate's environment.
    managed: options.managedFile ?? process.env.TOOLGATE_MANAGED_POLICY ?? MANAGED_POLICY_FILE,
    user: join(options.home, 'policy.json'),
    project: join(options.workspace, '.toolgate', 'policy.json'),
  };
}

/** How to build the engine. */
export interface PolicyEngineOptions {
  /** The gate's tools, to refuse rules that name none. */
  tools: ToolLookup;
  /** Real path of the workspace: relative path rules are anchored there; the project file lives in it. */
  workspace: string;
  /** The state folder: the user file and the project-trust record live there. */
  home: string;
  /** What `~/` in path rules means (the person's home folder by default). */
  userHome?: string;
  /** The managed file (tests point it at a temp file). */
  managedFile?: string;
  /** The security mode (standard by default). */
  mode?: PolicyMode;
  /** Rules given as `--grant` flags: allows of the flag layer. */
  flagRules?: readonly string[];
  /** How often watched files are looked at, in ms (stat polling also sees atomic renames and files yet to exist). */
  watchIntervalMs?: number;
}

/** One layer's rules, or the problem that refused its file. */
interface LayerState {
  readonly layer: PolicyLayer;
  readonly file?: string;
  readonly rules: readonly CompiledRule[];
  readonly refused?: { readonly problem: PolicyProblem; readonly scope: RefusedScope };
  readonly notice?: string;
}

const LAYER_ORDER: readonly PolicyLayer[] = ['managed', 'user', 'project', 'session', 'flag'];
const NO_RULES: readonly CompiledRule[] = [];

/**
 * The policy engine: rules from five layers (managed, user, project once trusted, session grants,
 * `--grant` flags), where deny beats ask beats allow across all of them; the tier defaults decide
 * what no rule does, as the security mode adjusts them. Rules are compiled once per load; a file
 * that fails to load is refused whole and every call it could have allowed asks instead.
 */
export class PolicyEngine implements Policy {
  readonly mode: PolicyMode;
  readonly files: Record<'managed' | 'user' | 'project', string>;
  private readonly context: PolicyContext;
  private layers = new Map<PolicyLayer, LayerState>();
  private index = new Map<string, CompiledRule[]>();
  private readonly listeners = new Set<() => void>();
  private readonly watched: string[] = [];
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;
  private closed = false;

  private constructor(private readonly options: PolicyEngineOptions) {
    this.mode = options.mode ?? 'standard';
    this.files = policyFiles(options);
    this.context = { tools: options.tools, anchors: { workspace: options.workspace, home: options.userHome ?? homedir() } };
  }

  /** Loads every layer; a `--grant` rule that cannot be compiled refuses the start (GateError). */
  static async create(options: PolicyEngineOptions): Promise<PolicyEngine> {
    const engine = new PolicyEngine(options);
    const flagRules: CompiledRule[] = [];
    for (const written of options.flagRules ?? []) {
      try {
        flagRules.push(await compileRule(written, 'allow', { layer: 'flag' }, engine.context));
      } catch (error) {
        if (!(error instanceof RuleError)) throw error;
        throw new GateError('EVALIDATION', `--grant ${written}: ${error.message}. Fix: ${error.fix}`);
      }
    }
    engine.layers.set('flag', { layer: 'flag', rules: flagRules });
    engine.layers.set('session', { layer: 'session', rules: [] });
    await engine.reload();
    return engine;
  }

  /** A tool the rules may name, by name. */
  tool(name: string): ToolManifest | undefined {
    return this.options.tools(name);
  }

  /** Learns what the decision needs that takes time: a shell line's parse. */
  prepare(manifest: ToolManifest, input: unknown): Promise<CallFacts> {
    return prepareFacts(manifest, input);
  }

  /** Decides one call, with the rule, its layer, file and line, and the part it matched. */
  decide(manifest: ToolManifest, input: unknown, facts: CallFacts = {}): PolicyDecision {
    const parts = callParts(manifest, input, facts, this.context.anchors);
    const judged = judgeCall(manifest, parts, (tool) => this.index.get(tool) ?? NO_RULES, this.context.anchors.workspace);
    const workspace = this.context.anchors.workspace;
    const touchesProtected = parts.paths.some((path) => protectedPathOf(path, workspace) !== undefined);
    return this.askForRefusedFiles(manifest, this.compose(manifest, input, judged, { touchesPaths: parts.paths.length > 0, touchesProtected }));
  }

  private compose(manifest: ToolManifest, input: unknown, judged: Judgement, touches: { touchesPaths: boolean; touchesProtected: boolean }): PolicyDecision {
    const mode = this.mode;
    if (judged.deny) return decisionFromRule('deny', judged.deny, mode);
    if (judged.ask) return decisionFromRule('ask', judged.ask, mode);
    if (judged.allow) {
      const allowed = decisionFromRule('allow', judged.allow, mode);
      if (judged.protectedPath) {
        return { ...allowed, decision: 'ask', rule: `protected:${judged.protectedPath}`, reason: `${judged.protectedPath} is a protected path, which always asks a person, although ${allowed.reason}` };
      }
      if (mode === 'strict' && tierLevel(manifest.tier) > 0) {
        return { ...allowed, decision: 'ask', rule: 'mode:strict', reason: `strict mode asks for everything above SAFE, although ${allowed.reason}` };
      }
      return allowed;
    }
    return modeDefault(manifest, input, tierPolicy.decide(manifest, input), { mode, notAllowable: judged.notAllowable, ...touches });
  }

  /** An allow turns into a question while a refused file could have had a say on this tool. */
  private askForRefusedFiles(manifest: ToolManifest, decision: PolicyDecision): PolicyDecision {
    if (decision.decision !== 'allow') return decision;
    for (const state of this.layers.values()) {
      const refused = state.refused;
      if (!refused || (refused.scope !== 'all' && !refused.scope.has(manifest.name))) continue;
      const where = `${refused.problem.file}${refused.problem.line ? ` line ${refused.problem.line}` : ''}`;
      return {
        ...decision,
        decision: 'ask',
        rule: 'policy-file-refused',
        reason: `the ${state.layer} policy ${where} is refused (${refused.problem.problem}), so every call it could have allowed asks until it is fixed: ${refused.problem.fix}`,
      };
    }
    return decision;
  }

  /** The mode, the refused files and notices, for the console. */
  status(): PolicyStatus {
    const states = LAYER_ORDER.flatMap((layer) => this.layers.get(layer) ?? []);
    return {
      mode: this.mode,
      problems: states.flatMap((state) => (state.refused ? [state.refused.problem] : [])),
      notices: states.flatMap((state) => (state.notice ? [state.notice] : [])),
    };
  }

  /** Every rule in force, tightest layer first. */
  rulesInForce(): CompiledRule[] {
    return LAYER_ORDER.flatMap((layer) => this.layers.get(layer)?.rules ?? []);
  }

  /** Calls `listener` after every reload or grant. Returns the unsubscribe. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds a session rule (a grant made from a prompt), in memory until the gate stops. */
  async grantSession(written: string, approvalId: string, effect: RuleEffect = 'allow'): Promise<CompiledRule> {
    const rule = await compileRule(written, effect, { layer: 'session', approvalId }, this.context);
    const session = this.layers.get('session')!;
    this.swap('session', { ...session, rules: [...session.rules, rule] });
    return rule;
  }

  /** Removes the session rules one approval made. */
  revokeSession(approvalId: string): void {
    const session = this.layers.get('session')!;
    this.swap('session', { ...session, rules: session.rules.filter((rule) => rule.source.approvalId !== approvalId) });
  }

  /** Re-reads the three files and swaps each layer in whole once it has compiled. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.reloadAgain = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      do {
        this.reloadAgain = false;
        const managed = await this.loadLayer('managed');
        const user = await this.loadLayer('user');
        const project = await this.loadProject();
        this.layers.set('managed', managed);
        this.layers.set('user', user);
        this.swap('project', project);
      } while (this.reloadAgain && !this.closed);
    })().finally(() => (this.reloading = undefined));
    return this.reloading;
  }

  private async loadLayer(layer: 'managed' | 'user'): Promise<LayerState> {
    const file = this.files[layer];
    const loaded = await loadPolicyFile(file, layer, this.context);
    return loaded.ok ? { layer, file, rules: loaded.rules } : { layer, file, rules: [], refused: { problem: loaded.problem, scope: loaded.scope } };
  }

  private async loadProject(): Promise<LayerState> {
    const file = this.files.project;
    const loaded = await loadPolicyFile(file, 'project', this.context);
    if (loaded.text === undefined) return { layer: 'project', file, rules: [] };
    if (!isTrusted(this.options.home, file, loaded.text)) {
      return {
        layer: 'project',
        file,
        rules: [],
        notice: `The project policy ${file} is not trusted (new, or changed since it was trusted), so its rules are ignored: review it, then run toolgate policy trust.`,
      };
    }
    return loaded.ok ? { layer: 'project', file, rules: loaded.rules } : { layer: 'project', file, rules: [], refused: { problem: loaded.problem, scope: loaded.scope } };
  }

  private swap(layer: PolicyLayer, state: LayerState): void {
    this.layers.set(layer, state);
    const index = new Map<string, CompiledRule[]>();
    for (const name of LAYER_ORDER) {
      for (const rule of this.layers.get(name)?.rules ?? []) {
        // Strict mode ignores what a project file allows (an agent may have written the repository).
        if (this.mode === 'strict' && name === 'project' && rule.effect === 'allow') continue;
        const list = index.get(rule.tool) ?? [];
        list.push(rule);
        index.set(rule.tool, list);
      }
    }
    this.index = index;
    for (const listener of this.listeners) listener();
  }

  /** Reloads when a policy file or the trust record changes (created, edited, renamed over, removed). */
  watch(): void {
    if (this.closed || this.watched.length > 0) return;
    const interval = this.options.watchIntervalMs ?? 500;
    for (const file of [this.files.managed, this.files.user, this.files.project, trustFile(this.options.home)]) {
      watchFile(file, { interval, persistent: false }, () => void this.reload().catch(() => undefined));
      this.watched.push(file);
    }
  }

  /** Stops watching. Idempotent. */
  close(): void {
    this.closed = true;
    for (const file of this.watched.splice(0)) unwatchFile(file);
    this.listeners.clear();
  }
}
