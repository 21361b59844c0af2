import type { SecurityTier } from '../../../shared/manifest';

/** A tool's security tier as a colored badge (the color says how much harm it can do). */
export function TierBadge({ tier }: { tier: SecurityTier }) {
  return (
    <span className={`tier-badge tier-${tier.toLowerCase()}`} data-testid="tier-badge" title={`Security tier ${tier}`}>
      {tier}
    </span>
  );
}
