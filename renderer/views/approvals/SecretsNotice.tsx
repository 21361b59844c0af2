import { VisibleText } from '../common/VisibleText';

/**
 * The line a prompt leads with when the call receives secrets: approving it hands their values to
 * the tool, which is the one thing the person must not miss.
 */
export function SecretsNotice({ secrets }: { secrets: readonly string[] | undefined }) {
  if (!secrets || secrets.length === 0) return null;
  return (
    <p className="approval-secrets" role="note" data-testid="approval-secrets">
      <strong>This call receives secrets: </strong>
      <VisibleText text={secrets.join(', ')} />
    </p>
  );
}
