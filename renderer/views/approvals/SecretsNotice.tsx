import { VisibleText } from '../common/VisibleText';

/**
 * The line a prompt leads with when the call receives secrets: approving it hands their values to
 * the tool, which is the one thing the person must not miss; and, for a shell, that what it prints
 * can carry them in forms no redaction catches.
 */
export function SecretsNotice({ secrets, warning }: { secrets: readonly string[] | undefined; warning?: string | undefined }) {
  if (!secrets || secrets.length === 0) return null;
  return (
    <p className="approval-secrets" role="note" data-testid="approval-secrets">
      <strong>This call receives secrets: </strong>
      <VisibleText text={secrets.join(', ')} />
      {warning ? <span data-testid="approval-secrets-warning">{` (${warning})`}</span> : null}
    </p>
  );
}
