/**
 * Precedence on one call, pair by pair: deny beats ask beats allow across every layer (managed,
 * user, trusted project, session grants, --grant rules) and within one, and no layer's place or a
 * rule's specificity overrides it. Each pair puts a stronger rule and a weaker one on the SAME call
 * (the weaker written more narrowly, so specificity would favour it), and first proves the weaker
 * one alone decides the call, so the stronger one's win is not an accident of the defaults.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PolicyEngine } from '../../main/policy/policyEngine';
import { trustProjectFile } from '../../main/policy/projectTrust';
import { decideShell, policyEngine, policyFolders, writePolicy, type PolicyFolders } from './policyFixture';

/** The call every pair judges. */
const COMMAND = 'git push origin main';
/** The stronger rule of a pair: broad. */
const BROAD = 'shell_exec(git push *)';
/** The weaker rule of a pair: exactly the call, as specific as a rule gets. */
const EXACT = `shell_exec(${COMMAND})`;

type Effect = 'deny' | 'ask' | 'allow';
/** Layers read from a file, which hold every effect. */
type FileLayer = 'managed' | 'user' | 'project';
/** Layers that only ever allow: a person's session grant and a `--grant` rule on the command line. */
type GrantLayer = 'session' | 'flag';
type Layer = FileLayer | GrantLayer;

interface Placed {
  layer: Layer;
  effect: Effect;
  rule: string;
}

let folders: PolicyFolders;
let engine: PolicyEngine | undefined;

beforeEach(() => {
  folders = policyFolders();
});
afterEach(() => {
  engine?.close();
  engine = undefined;
  folders.remove();
});

/** An engine holding exactly these rules, each in its layer. */
async function engineWith(rules: readonly Placed[]): Promise<PolicyEngine> {
  engine?.close();
  for (const layer of ['managed', 'user', 'project'] as const) {
    const own = rules.filter((rule) => rule.layer === layer);
    const policy: Partial<Record<Effect, string[]>> = {};
    for (const rule of own) (policy[rule.effect] ??= []).push(rule.rule);
    writePolicy(folders[layer], policy);
  }
  trustProjectFile(folders.home, folders.project);
  const flagRules = rules.filter((rule) => rule.layer === 'flag').map((rule) => rule.rule);
  engine = await policyEngine(folders, { flagRules });
  for (const [index, rule] of rules.filter((placed) => placed.layer === 'session').entries()) await engine.grantSession(rule.rule, `approval-${index}`);
  return engine;
}

const STRENGTH: Record<Effect, number> = { deny: 2, ask: 1, allow: 0 };
const FILE_LAYERS: readonly FileLayer[] = ['managed', 'user', 'project'];
const ALL_LAYERS: readonly Layer[] = ['managed', 'user', 'project', 'session', 'flag'];

/** Every pair of a stronger rule (deny or ask, in a file) and a weaker one (in any layer that holds its effect). */
function precedencePairs(): Array<{ name: string; strong: Placed; weak: Placed }> {
  const pairs: Array<{ name: string; strong: Placed; weak: Placed }> = [];
  for (const strongEffect of ['deny', 'ask'] as const) {
    for (const strongLayer of FILE_LAYERS) {
      for (const weakEffect of (['ask', 'allow'] as const).filter((effect) => STRENGTH[effect] < STRENGTH[strongEffect])) {
        for (const weakLayer of weakEffect === 'allow' ? ALL_LAYERS : FILE_LAYERS) {
          pairs.push({
            name: `a ${strongLayer} ${strongEffect} beats a ${weakLayer} ${weakEffect}`,
            strong: { layer: strongLayer, effect: strongEffect, rule: BROAD },
            weak: { layer: weakLayer, effect: weakEffect, rule: EXACT },
          });
        }
      }
    }
  }
  return pairs;
}

/** The layer a decision's provenance names: session grants and --grant rules are named by their layer alone. */
function layerOf(decision: { provenance?: { source: { layer: string } } }): string | undefined {
  return decision.provenance?.source.layer;
}

describe('precedence on the same call', () => {
  it.each(precedencePairs())('$name', async ({ strong, weak }) => {
    // The weaker rule alone decides the call: it matches, and it is not the default speaking.
    const alone = await decideShell(await engineWith([weak]), COMMAND);
    expect(alone.decision).toBe(weak.effect);
    expect(layerOf(alone)).toBe(weak.layer);

    const both = await decideShell(await engineWith([strong, weak]), COMMAND);
    expect(both.decision).toBe(strong.effect);
    expect(layerOf(both)).toBe(strong.layer);
    expect(both.rule).toContain(BROAD);
  });

  it('the managed deny wins with every other layer holding an ask or an allow for the call at once', async () => {
    const others: Placed[] = [
      { layer: 'user', effect: 'ask', rule: EXACT },
      { layer: 'user', effect: 'allow', rule: EXACT },
      { layer: 'project', effect: 'ask', rule: EXACT },
      { layer: 'project', effect: 'allow', rule: EXACT },
      { layer: 'session', effect: 'allow', rule: EXACT },
      { layer: 'flag', effect: 'allow', rule: EXACT },
    ];
    const decided = await decideShell(await engineWith([{ layer: 'managed', effect: 'deny', rule: BROAD }, ...others]), COMMAND);
    expect(decided).toMatchObject({ decision: 'deny', provenance: { source: { layer: 'managed' } } });
  });

  it('an ask beats allows from every layer, the tightest among them included', async () => {
    const allows: Placed[] = ALL_LAYERS.map((layer) => ({ layer, effect: 'allow', rule: EXACT }));
    const decided = await decideShell(await engineWith([{ layer: 'project', effect: 'ask', rule: BROAD }, ...allows]), COMMAND);
    expect(decided).toMatchObject({ decision: 'ask', provenance: { source: { layer: 'project' } } });
  });
});
