import { readFileSync } from 'node:fs';
import { watchFileChanges } from '../state/fileChanges';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { GateError } from '../../shared/errors';
import { tierLevel, type ToolManifest } from '../../shared/manifest';
import type { PolicyLayer, PolicyMode, PolicyProblem, PolicyStatus, RuleEffect } from '../../shared/policy';
import { callParts, prepareFacts, type CallFacts } from './callParts';
import { compileRule, type CompiledRule, type ToolLookup } from './compiledRule';
import { accessRulesOf, judgeCall, type AccessRules, type Judgement } from './judgeCall';
import { decisionFromRule, DECISION_STRICTNESS, modeDefault } from './policyDecisions';
import { protectedPathOf } from './pathRule';
import { askForOutsideReach } from './outsideReach';
import { compilePolicyText, loadPolicyFile, type PolicyContext, type RefusedScope } from './policyFile';
import { appendRules, removeRule } from './policyFileEdit';
import { isTrusted, trustFile, trustProjectFile } from './projectTrust';
import type { RuleSuggestion } from '../../shared/permissions';
import { suggestRules } from './ruleSuggestions';
import { grantHolds, RuleUsage, type GrantScope } from './ruleUsage';
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
  readonly refused?: { readonly problems: readonly PolicyProblem[]; readonly scope: RefusedScope };
  readonly notice?: string;
}

const LAYER_ORDER: readonly PolicyLayer[] = ['managed', 'team', 'user', 'project', 'session', 'flag'];
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
  /** Deny and ask path rules by the access they guard, across tools. */
  private accessRules: AccessRules = accessRulesOf([]);
  private readonly listeners = new Set<() => void>();
  private readonly watched: Array<() => void> = [];
  private reloading: Promise<void> | undefined;
  private reloadAgain = false;
  private closed = false;
  /** How often each rule decided a call, and when it last did (for the Permissions view). */
  readonly usage = new RuleUsage();
  /** Timed grants' ends, by the approval that made them. */
  private readonly expiries = new Map<string, NodeJS.Timeout>();
  /** Whether some grant holds for one agent session or a while only (then rules are filtered per call). */
  private scopedGrants = false;

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

  /** Rules that would allow this call, narrowest first (a prompt's rule editor starts from the first). */
  async suggestRules(manifest: ToolManifest, input: unknown): Promise<RuleSuggestion[]> {
    return suggestRules(manifest, input, await this.prepare(manifest, input), this.context.anchors);
  }

  /** Decides one call, with the rule, its layer, file and line, and the part it matched. */
  decide(manifest: ToolManifest, input: unknown, facts: CallFacts = {}): PolicyDecision {
    const parts = callParts(manifest, input, facts, this.context.anchors);
    const now = Date.now();
    const rulesFor = (tool: string): readonly CompiledRule[] => {
      const rules = this.index.get(tool) ?? NO_RULES;
      return this.scopedGrants ? rules.filter((rule) => grantHolds(rule.source, facts.agentSession, now)) : rules;
    };
    const accessRules: AccessRules = (access) => {
      const rules = this.accessRules(access);
      return this.scopedGrants ? rules.filter((rule) => grantHolds(rule.source, facts.agentSession, now)) : rules;
    };
    const judged = judgeCall(manifest, parts, rulesFor, this.context.anchors.workspace, accessRules);
    const workspace = this.context.anchors.workspace;
    const touchesProtected = parts.paths.some((path) => protectedPathOf(path, workspace) !== undefined);
    const composed = this.askForRefusedFiles(manifest, this.compose(manifest, input, judged, { touchesPaths: parts.paths.length > 0, touchesProtected }));
    const decision = askForOutsideReach(parts, composed, workspace);
    const deciding = decision.provenance ? judged[decision.provenance.effect] : undefined;
    const counted = facts.again === undefined || DECISION_STRICTNESS[decision.decision] > DECISION_STRICTNESS[facts.again];
    if (deciding && deciding.rule.effect === decision.decision && counted) this.usage.record(deciding.rule, now);
    return decision;
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
      const [first, ...more] = refused.problems;
      const where = `${first!.file}${first!.line ? ` line ${first!.line}` : ''}`;
      const others = more.length > 0 ? ` and ${more.length} more fault${more.length === 1 ? '' : 's'}` : '';
      return {
        ...decision,
        decision: 'ask',
        rule: 'policy-file-refused',
        reason: `the ${state.layer} policy ${where} is refused (${first!.problem}${others}), so every call it could have allowed asks until it is fixed: ${first!.fix}`,
      };
    }
    return decision;
  }

  /** The mode, the refused files and notices, for the console. */
  status(): PolicyStatus {
    const states = LAYER_ORDER.flatMap((layer) => this.layers.get(layer) ?? []);
    return {
      mode: this.mode,
      problems: states.flatMap((state) => state.refused?.problems ?? []),
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

  /**
   * Adds a session rule (a grant made from a prompt), in memory until the gate stops, or for one
   * agent session only, or until `expiresAt` (then it is revoked by itself).
   */
  async grantSession(written: string, approvalId: string, effect: RuleEffect = 'allow', scope: GrantScope = {}): Promise<CompiledRule> {
    const source = {
      layer: 'session' as const,
      approvalId,
      ...(scope.agentSession ? { agentSession: scope.agentSession } : {}),
      ...(scope.expiresAt ? { expiresAt: scope.expiresAt.toISOString() } : {}),
    };
    const rule = await compileRule(written, effect, source, this.context);
    if (scope.expiresAt && !this.closed && !this.expiries.has(approvalId)) {
      const timer = setTimeout(() => this.revokeSession(approvalId), Math.max(0, scope.expiresAt.getTime() - Date.now()));
      timer.unref();
      this.expiries.set(approvalId, timer);
    }
    const session = this.layers.get('session')!;
    this.swap('session', { ...session, rules: [...session.rules, rule] });
    return rule;
  }

  /** Removes the session rules one approval made. */
  revokeSession(approvalId: string): void {
    clearTimeout(this.expiries.get(approvalId));
    this.expiries.delete(approvalId);
    const session = this.layers.get('session')!;
    this.swap('session', { ...session, rules: session.rules.filter((rule) => rule.source.approvalId !== approvalId) });
  }

  /** Removes one session rule; false when it is no longer in force. */
  revokeGrant(rule: CompiledRule): boolean {
    const session = this.layers.get('session')!;
    const rules = session.rules.filter((candidate) => candidate !== rule);
    if (rules.length === session.rules.length) return false;
    this.swap('session', { ...session, rules });
    return true;
  }

  /**
   * Appends allow rules to the user or project file ("Always allow"), then reloads. The project
   * file is trusted again after the edit only when it was trusted (or absent) before: a file the
   * person never reviewed is refused instead, so saving a rule never vouches for an agent's edits.
   */
  async saveRules(layer: 'user' | 'project', rules: readonly string[]): Promise<void> {
    const file = this.files[layer];
    const trustAfter = layer === 'project' && this.projectTrustedOrAbsent();
    if (layer === 'project' && !trustAfter) {
      throw new GateError('EPERMISSION', `the project policy ${file} is not trusted (new, or changed since it was trusted): review it and run toolgate policy trust first, or save the rule to the user policy`);
    }
    if (layer === 'project' && this.mode === 'strict') {
      throw new GateError('EPERMISSION', 'strict mode ignores what the project policy allows: save the rule to the user policy instead');
    }
    await appendRules(file, layer, 'allow', rules, this.context);
    if (trustAfter) trustProjectFile(this.options.home, file);
    await this.reload();
  }

  /** Removes a user or project file rule (revoke from the console), then reloads; false when it was no longer there. */
  async removeFileRule(rule: CompiledRule): Promise<boolean> {
    const layer = rule.source.layer;
    if (layer !== 'user' && layer !== 'project') throw new GateError('EPERMISSION', `a ${layer} rule cannot be revoked from the console`);
    const trustAfter = layer === 'project' && this.projectTrustedOrAbsent();
    const removed = await removeRule(this.files[layer], layer, rule.effect, { text: rule.text, ...(rule.source.line ? { line: rule.source.line } : {}) }, this.context);
    if (removed && trustAfter) trustProjectFile(this.options.home, this.files.project);
    await this.reload();
    return removed;
  }

  /** Read now, not from the last load: the file may have changed since. */
  private projectTrustedOrAbsent(): boolean {
    let text: string;
    try {
      text = readFileSync(this.files.project, 'utf8');
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOENT';
    }
    return isTrusted(this.options.home, this.files.project, text);
  }

  /** Compiles a rule as a layer would (throws RuleError naming the fault and the fix), without adding it. */
  compile(written: string, effect: RuleEffect, source: { layer: PolicyLayer }): Promise<CompiledRule> {
    return compileRule(written, effect, source, this.context);
  }

  /**
   * Puts in the team's policy layer, as the team's bucket holds it (`source` names it where a file
   * would be named). Unreadable (not read yet, or broken) it is refused whole: every call it could
   * have allowed asks, as a refused file's would.
   */
  async setTeamLayer(layer: { text: string; source: string } | { unreadable: string; source: string }): Promise<void> {
    if ('unreadable' in layer) {
      const problem = { layer: 'team' as const, file: layer.source, problem: layer.unreadable, fix: 'reconnect to the team server, or ask the team\'s admin to fix the team policy' };
      this.swap('team', { layer: 'team', file: layer.source, rules: [], refused: { problems: [problem], scope: 'all' } });
      return;
    }
    const loaded = await compilePolicyText(layer.text, layer.source, 'team', this.context);
    this.swap('team', loaded.ok ? { layer: 'team', file: layer.source, rules: loaded.rules } : { layer: 'team', file: layer.source, rules: [], refused: { problems: loaded.problems, scope: loaded.scope } });
  }

  /** What compiling and matching rules needs: the tools and the path anchors. */
  get policyContext(): PolicyContext {
    return this.context;
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
    return loaded.ok ? { layer, file, rules: loaded.rules } : { layer, file, rules: [], refused: { problems: loaded.problems, scope: loaded.scope } };
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
    return loaded.ok ? { layer: 'project', file, rules: loaded.rules } : { layer: 'project', file, rules: [], refused: { problems: loaded.problems, scope: loaded.scope } };
  }

  private swap(layer: PolicyLayer, state: LayerState): void {
    this.layers.set(layer, state);
    this.scopedGrants = (this.layers.get('session')?.rules ?? []).some((rule) => rule.source.agentSession || rule.source.expiresAt);
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
    const guarding = accessRulesOf([...index.values()].flat());
    const byAccess = { read: guarding('read'), write: guarding('write') };
    this.accessRules = (access) => byAccess[access];
    for (const listener of this.listeners) listener();
  }

  /** Reloads when a policy file or the trust record changes (created, edited, renamed over, removed). */
  watch(): void {
    if (this.closed || this.watched.length > 0) return;
    const interval = this.options.watchIntervalMs ?? 500;
    for (const file of [this.files.managed, this.files.user, this.files.project, trustFile(this.options.home)]) {
      this.watched.push(watchFileChanges(file, interval, () => void this.reload().catch(() => undefined)));
    }
  }

  /** Stops watching. Idempotent. */
  close(): void {
    this.closed = true;
    for (const timer of this.expiries.values()) clearTimeout(timer);
    this.expiries.clear();
    for (const stop of this.watched.splice(0)) stop();
    this.listeners.clear();
  }
}
