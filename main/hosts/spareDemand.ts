import type { SandboxProfile } from './sandbox';

/** How many spare processes are kept, and for how long a profile nobody asks for keeps its own. */
export interface SparePolicy {
  /** Spare processes kept ready at most, one per profile, for the profiles asked for most recently. */
  spares: number;
  /** A profile not asked for in this long keeps no spare: a quiet gate holds no processes for it. */
  idleMs: number;
}

/** Names a sandbox profile (the pool's isolation keys also change with what the workspace holds). */
export function profileName(profile: SandboxProfile): string {
  return `${profile.writeWorkspace ? 'rw' : 'ro'}:${profile.network ? 'net' : 'nonet'}:${profile.spawnsProcesses ? 'spawn' : 'nospawn'}`;
}

/**
 * Which sandbox profiles deserve a spare tool process, started before a call needs it: those asked
 * for (or announced, as a write is while its person reads the prompt) most recently, at most
 * `spares` of them, and none asked for longer than `idleMs` ago. A gate that is not used starts
 * nothing; one that is finds its calls' processes ready.
 */
export class SpareDemand {
  /** Profiles by name, oldest demand first (a Map keeps insertion order; a new ask moves it last). */
  private readonly asked = new Map<string, { profile: SandboxProfile; at: number }>();

  constructor(
    private readonly policy: SparePolicy,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** A call of this profile was asked for, or is about to be. */
  note(profile: SandboxProfile): void {
    const name = profileName(profile);
    this.asked.delete(name);
    this.asked.set(name, { profile, at: this.now() });
  }

  /** The profiles that should have a spare now, most recently asked for first. */
  wanted(): SandboxProfile[] {
    const oldest = this.now() - this.policy.idleMs;
    for (const [name, { at }] of this.asked) {
      if (at >= oldest) break;
      this.asked.delete(name);
    }
    return [...this.asked.values()]
      .reverse()
      .slice(0, this.policy.spares)
      .map(({ profile }) => profile);
  }
}
