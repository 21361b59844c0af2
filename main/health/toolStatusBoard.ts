import type { SandboxFact, ToolHealth, ToolStatus } from '../../shared/health';
import { tierLevel, type SecurityTier, type ToolManifest } from '../../shared/manifest';
import type { ToolSourceInfo } from '../../shared/toolSources';
import type { ToolRegistry } from '../registry/registry';
import type { ToolHealthMonitor } from './toolHealth';

/**
 * The tier policy applies to a tool: a tier, or a tier with the reason it is above the declared one
 * (the shape main/policy/sandboxTier.ts answers with).
 */
export type EffectiveTier = SecurityTier | { tier: SecurityTier; raisedBecause?: string };

/** What the board reads its facts from. */
export interface ToolStatusBoardOptions {
  /** The registered tools. */
  registry: Pick<ToolRegistry, 'list'>;
  /** Their health. */
  health: Pick<ToolHealthMonitor, 'status' | 'isAvailable'>;
  /** Whether tools run in an OS sandbox on this machine. */
  sandbox: SandboxFact;
  /** The tier policy applies to a manifest (the same function policy uses); the declared tier by default. */
  effectiveTier?: (manifest: ToolManifest) => EffectiveTier;
  /** A tools-home manifest tool's source, hashes and review (undefined for other tools). */
  sourceOf?: (name: string) => ToolSourceInfo | undefined;
}

/** The console's Tools view, built from the registry, the health monitor and the sandbox fact. */
export class ToolStatusBoard {
  /** Whether tools run in an OS sandbox; getInfo hands it to the console for its banner. */
  readonly sandbox: SandboxFact;

  constructor(private readonly options: ToolStatusBoardOptions) {
    // Only what the console may see: a richer fact (the bwrap command, its version) stays in main.
    const { kind, reason } = options.sandbox;
    this.sandbox = Object.freeze(reason === undefined ? { kind } : { kind, reason });
  }

  /** Every registered tool's status, sorted by name. */
  list(): ToolStatus[] {
    return this.options.registry.list().map((manifest) => this.statusOf(manifest));
  }

  private statusOf(manifest: ToolManifest): ToolStatus {
    const health: ToolHealth = this.options.health.status(manifest.name);
    const source = this.options.sourceOf?.(manifest.name);
    return {
      name: manifest.name,
      version: manifest.version,
      description: manifest.description,
      tier: manifest.tier,
      ...this.effective(manifest),
      sideEffects: [...manifest.sideEffects],
      capabilities: [...manifest.capabilities],
      bounds: manifest.bounds,
      sandbox: this.sandbox.kind,
      health: { ...health },
      available: this.options.health.isAvailable(manifest.name) && (source?.refusal === undefined),
      ...(source ? { source } : {}),
    };
  }

  private effective(manifest: ToolManifest): Pick<ToolStatus, 'effectiveTier' | 'tierRaisedBecause'> {
    let answer: EffectiveTier;
    try {
      answer = this.options.effectiveTier?.(manifest) ?? manifest.tier;
    } catch (error) {
      // Policy fails closed on the same error; show the person why the tool is then refused.
      return {
        effectiveTier: 'DANGEROUS',
        tierRaisedBecause: `its effective tier could not be worked out (${(error as Error).message}), so it is treated as DANGEROUS`,
      };
    }
    const { tier, raisedBecause } = typeof answer === 'string' ? { tier: answer, raisedBecause: undefined } : answer;
    if (tierLevel(tier) <= tierLevel(manifest.tier)) return { effectiveTier: tier };
    return { effectiveTier: tier, tierRaisedBecause: raisedBecause ?? this.defaultRaiseReason() };
  }

  private defaultRaiseReason(): string {
    if (this.sandbox.kind !== 'none') return "the gate's policy raised it";
    return `there is no OS sandbox (bubblewrap) on this machine${this.sandbox.reason ? `: ${this.sandbox.reason}` : ''}`;
  }
}
