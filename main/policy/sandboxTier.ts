import { SECURITY_TIERS, tierLevel, type SecurityTier, type SideEffect, type ToolManifest } from '../../shared/manifest';
import type { SandboxInfo } from '../hosts/sandbox';

/** Side effects whose tools the OS sandbox confines: without one, they are treated a tier higher. */
const CONFINED_EFFECTS: readonly SideEffect[] = ['FsRead', 'FsWrite', 'ProcessSpawn'];

/** The tier policy judges a tool by, and why it differs from the declared one. */
export interface EffectiveTier {
  tier: SecurityTier;
  /** Set when the tier was raised. */
  raisedBecause?: string;
}

/** A tool's tier as policy sees it: one higher when it touches files or spawns programs and no sandbox can be had. */
export function effectiveTier(manifest: ToolManifest, sandbox: SandboxInfo): EffectiveTier {
  if (sandbox.kind !== 'none' || !manifest.sideEffects.some((effect) => CONFINED_EFFECTS.includes(effect))) {
    return { tier: manifest.tier };
  }
  const tier = SECURITY_TIERS[Math.min(tierLevel(manifest.tier) + 1, SECURITY_TIERS.length - 1)]!;
  return { tier, raisedBecause: `no OS sandbox on this machine (${sandbox.reason}), so ${manifest.name} is treated as ${tier}, not ${manifest.tier}` };
}
