import { formatCountdown } from '../../format/time';
import { useNow } from '../common/useNow';

/** Time left before an unanswered prompt is denied. */
export function Countdown({ expiresAt }: { expiresAt: string }) {
  const remaining = Date.parse(expiresAt) - useNow();
  const expired = Number.isNaN(remaining) || remaining <= 0;
  return (
    <span className={`countdown${remaining < 15_000 ? ' countdown-urgent' : ''}`} data-testid="countdown">
      {expired ? 'Expired' : `Expires in ${formatCountdown(remaining)}`}
    </span>
  );
}
