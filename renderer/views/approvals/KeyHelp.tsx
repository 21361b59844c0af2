import { useEffect, useRef } from 'react';
import { APPROVAL_KEYS } from './approvalKeys';

/** The `?` overlay: every key of the Approvals view and what it does. It takes the focus while open; Esc or Close shuts it. */
export function KeyHelp({ onClose }: { onClose: () => void }) {
  const closeRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const before = document.activeElement;
    closeRef.current?.focus();
    // Closed, the focus goes back where it was (a prompt, the button that opened it).
    return () => {
      if (before instanceof HTMLElement && before.isConnected) before.focus({ preventScroll: true });
    };
  }, []);
  return (
    <div className="key-help" role="dialog" aria-label="Keyboard shortcuts" data-testid="key-help">
      <h3>Keyboard shortcuts</h3>
      <p className="note">Keys act on the highlighted prompt; they wait a moment after a prompt appears, and do nothing while you type in a field.</p>
      <dl>
        {APPROVAL_KEYS.map(({ keys, does }) => (
          <div key={keys} className="key-help-row">
            <dt>
              <kbd>{keys}</kbd>
            </dt>
            <dd>{does}</dd>
          </div>
        ))}
      </dl>
      <button ref={closeRef} type="button" onClick={onClose}>
        Close
      </button>
    </div>
  );
}
