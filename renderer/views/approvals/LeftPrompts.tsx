import { VisibleText } from '../common/VisibleText';
import { useConsoleState, useConsoleSync } from '../consoleContext';

/**
 * Prompts whose agent left while they waited: their cards went at once, and here the person reads
 * why, so a card that vanished mid-reading is not mistaken for an answer. Nothing of them ran.
 */
export function LeftPrompts() {
  const left = useConsoleState((s) => s.leftPrompts);
  const sync = useConsoleSync();
  if (left.length === 0) return null;
  return (
    <section className="left-prompts" aria-label="Prompts withdrawn because the agent left" data-testid="left-prompts">
      <ul>
        {left.map((prompt) => (
          <li key={prompt.approvalId} data-testid="left-prompt" data-approval-id={prompt.approvalId}>
            <strong>
              <VisibleText text={prompt.tool} />
            </strong>{' '}
            was withdrawn, <VisibleText text={prompt.reason} />. The call did not run and can no longer be approved.
          </li>
        ))}
      </ul>
      <button type="button" className="link-button" onClick={() => sync.dismissLeftPrompts()}>
        Dismiss
      </button>
    </section>
  );
}
