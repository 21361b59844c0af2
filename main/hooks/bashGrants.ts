import { randomBytes, timingSafeEqual } from 'node:crypto';
import { commandSha256, type RunGrant } from './bashRun';
import type { Judgment } from '../executor/steps/judgedAgain';

/** Grant ids remembered after their use or end, so a second use is told why it cannot run. */
const MAX_SPENT_KEPT = 1000;

/** What a grant lets run, once: the exact text judged, where it was judged to run, and for how long. */
export interface BashGrant {
  readonly id: string;
  readonly sha256: string;
  readonly command: string;
  /** The folder Claude Code's Bash works in, as the kernel takes it (the cwd the call was judged in). */
  readonly cwd: string;
  /** The command's deadline in ms (Claude Code's timeout, bounded by shell_exec's). */
  readonly timeoutMs: number;
  /** When it was issued (performance.now()): Claude Code starts an allowed command at once, or never. */
  readonly issuedAt: number;
  /** What the hook judged the command on, to judge it again when it runs if the workspace may have changed since. */
  readonly judgment?: Judgment;
}

/** A new grant of one run of this text, with a random id (128 bits) and the text's hash. */
export function newGrant(command: string, cwd: string, timeoutMs: number, judgment?: Judgment): BashGrant {
  return { id: randomBytes(16).toString('hex'), sha256: commandSha256(command), command, cwd, timeoutMs, issuedAt: performance.now(), ...(judgment ? { judgment } : {}) };
}

/** The id and hash the command Claude Code runs carries. */
export function grantToken(grant: BashGrant): RunGrant {
  return { grant: grant.id, sha256: grant.sha256 };
}

/** Whether the hash presented is the grant's, compared in constant time. */
export function hashMatches(grant: BashGrant, presented: string): boolean {
  const expected = Buffer.from(grant.sha256, 'utf8');
  const given = Buffer.from(presented, 'utf8');
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Why grants that can no longer run cannot, by id (the newest MAX_SPENT_KEPT). */
export class SpentGrants {
  private readonly why = new Map<string, string>();

  /** Remembers that the grant ended, and why. */
  spend(id: string, why: string): void {
    this.why.delete(id);
    this.why.set(id, why);
    // Bounded: a flood of grants costs the oldest their reason, never memory.
    if (this.why.size > MAX_SPENT_KEPT) this.why.delete(this.why.keys().next().value!);
  }

  /** Why this id cannot run: spent, or never issued by this gate. */
  refusal(id: string): string {
    const why = this.why.get(id);
    if (why !== undefined) return `its grant ${why}`;
    return 'this gate issued no such grant (a gate started since the call was allowed does not know the grants of the one before)';
  }
}

/** How long after its grant Claude Code may still start an allowed Bash command, as far as judging its other tools goes. */
export const GRANT_STARTS_MS = 30_000;

/**
 * How many of these unused grants Claude Code may still be about to run at `now` (performance.now()):
 * it starts an allowed command at once, so one not started within GRANT_STARTS_MS was interrupted,
 * and no longer counts, though it stays valid until it expires.
 */
export function startingGrants(grants: Iterable<Pick<BashGrant, 'issuedAt'>>, now: number): number {
  let starting = 0;
  // Compared as the deadline itself: `now - issuedAt` of fractional milliseconds can round below it at the deadline.
  for (const grant of grants) if (now < grant.issuedAt + GRANT_STARTS_MS) starting++;
  return starting;
}
