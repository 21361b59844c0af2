import { join } from 'node:path';
import type { AuditRecord } from '../../shared/audit';
import { stepsOfAll } from '../../shared/auditSteps';
import type { ToolManifest } from '../../shared/manifest';
import type { ApprovalScope, RuleCheck } from '../../shared/permissions';
import type { PolicyLayer } from '../../shared/policy';
import { callParts, prepareFacts } from './callParts';
import type { CompiledRule } from './compiledRule';
import { accessRulesOf, judgeCall } from './judgeCall';
import type { PolicyEngine } from './policyEngine';
import { RuleError } from './ruleText';
import { runsAnyCode } from './shellRule';

/** The call a prompt asks about, as the rule editor checks rules against it. */
export interface RuleSubject {
  readonly callId: string;
  readonly manifest: ToolManifest;
  readonly input: unknown;
}

/** How many past calls the editor shows the rules would also have matched. */
const MAX_MATCHES = 20;
/** How far back in the audit the editor looks for them. */
const RECENT_RECORDS = 2000;

/** The layer a scoped approval's rules go to. */
export function layerOfScope(scope: ApprovalScope): PolicyLayer {
  return scope.kind === 'always' ? scope.file : 'session';
}

/** The rules a person typed, one per line or entry, blank lines dropped. */
export function typedRules(rules: readonly string[]): string[] {
  return rules.flatMap((entry) => entry.split('\n')).map((rule) => rule.trim()).filter((rule) => rule !== '');
}

/** Whether these rules, alone, allow every part of the call. */
async function allowsCall(rules: readonly CompiledRule[], manifest: ToolManifest, input: unknown, engine: PolicyEngine): Promise<{ allowed: boolean; why?: string }> {
  const { anchors } = engine.policyContext;
  const parts = callParts(manifest, input, await prepareFacts(manifest, input), anchors);
  const judged = judgeCall(manifest, parts, (tool) => rules.filter((rule) => rule.tool === tool), anchors.workspace, accessRulesOf(rules));
  if (judged.allow) return { allowed: true };
  return { allowed: false, ...(judged.notAllowable ? { why: judged.notAllowable } : {}) };
}

/** Why a rule deserves a second look before it is saved, if it does. */
function broadness(rule: CompiledRule, engine: PolicyEngine): string | undefined {
  const { matcher } = rule;
  if (matcher.kind === 'any') return `${rule.text} allows every ${rule.tool} call, whatever its arguments`;
  if (matcher.kind === 'shell') {
    const [program = '', ...rest] = matcher.pattern.words;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(program)) return `${rule.text} starts with an environment prefix (${program.slice(0, program.indexOf('=') + 1)}…), which changes what the program does`;
    if (runsAnyCode(program)) return `${rule.text} allows ${program}, which runs whatever code it is handed`;
    if (matcher.pattern.prefix && rest.length === 0) return `${rule.text} allows ${program} with any arguments`;
    return undefined;
  }
  if (matcher.kind === 'path') {
    const { workspace } = engine.policyContext.anchors;
    const writes = engine.tool(rule.tool)?.sideEffects.includes('FsWrite') ?? false;
    const everywhere = matcher.pattern.test(join(workspace, 'toolgate-probe.txt')) && matcher.pattern.test(join(workspace, 'a', 'b', 'toolgate-probe.txt'));
    if (everywhere) return `${rule.text} covers the whole workspace${writes ? ', so it lets every file be written' : ''}`;
    return undefined;
  }
  if (matcher.kind === 'arguments') {
    const open = matcher.pattern.pairs.find((pair) => pair.matchesAnything);
    return open ? `${rule.text} allows any ${open.argument}` : undefined;
  }
  return matcher.pattern.host === '*' ? `${rule.text} allows every host` : undefined;
}

/**
 * Checks rules a person edited on a prompt before anything is saved: each must compile, the layer
 * must take it (strict mode ignores project allows), together they must allow the call the prompt
 * is about (a rule that does not is not what was approved); broad rules get a warning, and the
 * recent audited calls they would also have allowed are listed.
 */
export async function checkRules(
  engine: PolicyEngine,
  subject: RuleSubject,
  written: readonly string[],
  scope: ApprovalScope,
  recent: (limit: number) => readonly AuditRecord[],
): Promise<RuleCheck & { compiled: CompiledRule[] }> {
  const problems: string[] = [];
  const compiled: CompiledRule[] = [];
  const rules = typedRules(written);
  if (scope.kind === 'once') return { problems: [], warnings: [], matches: [], compiled };
  if (rules.length === 0) problems.push('write at least one rule, e.g. the suggested one');
  const layer = layerOfScope(scope);
  if (layer === 'project' && engine.mode === 'strict') problems.push('strict mode ignores what the project policy allows: save the rule to the user policy instead');
  for (const rule of rules) {
    try {
      compiled.push(await engine.compile(rule, 'allow', { layer }));
    } catch (error) {
      if (!(error instanceof RuleError)) throw error;
      problems.push(`${rule}: ${error.message}. Fix: ${error.fix}`);
    }
  }
  if (problems.length === 0) {
    const covered = await allowsCall(compiled, subject.manifest, subject.input, engine);
    if (!covered.allowed) {
      problems.push(`these rules do not allow the call you are approving${covered.why ? ` (${covered.why})` : ''}: keep a rule for each of its commands, files and hosts`);
    }
  }
  const warnings = compiled.flatMap((rule) => broadness(rule, engine) ?? []);
  const matches = problems.length === 0 ? await recentMatches(compiled, subject.callId, engine, stepsOfAll(recent(RECENT_RECORDS))) : [];
  return { problems, warnings, matches, compiled };
}

async function recentMatches(rules: readonly CompiledRule[], exceptCallId: string, engine: PolicyEngine, records: readonly AuditRecord[]): Promise<RuleCheck['matches']> {
  const tools = new Set(rules.map((rule) => rule.tool));
  const matches: RuleCheck['matches'] = [];
  for (const record of records) {
    if (matches.length >= MAX_MATCHES) break;
    const payload = record.payload as { tool?: unknown; arguments?: unknown } | null;
    if (record.kind !== 'invoked' || record.callId === exceptCallId || typeof payload?.tool !== 'string' || !tools.has(payload.tool)) continue;
    const manifest = engine.tool(payload.tool);
    if (!manifest || typeof payload.arguments !== 'object' || payload.arguments === null) continue;
    // A recorded call the rules cannot judge (arguments the gate refused, a path Node will not take)
    // is no match: an agent's old call must not stop the person saving a rule now.
    const judged = await allowsCall(rules, manifest, payload.arguments, engine).catch(() => undefined);
    if (judged?.allowed) matches.push({ callId: record.callId, time: record.time, tool: payload.tool, arguments: payload.arguments });
  }
  return matches;
}
