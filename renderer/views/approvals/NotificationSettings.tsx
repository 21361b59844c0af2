import { createContext, useCallback, useContext, useState, useSyncExternalStore } from 'react';
import type { PromptNotifier } from '../../notify/promptNotifier';
import { ProblemNote } from '../common/ProblemNote';

/** The console's prompt notifier (absent where the page has none, e.g. in view tests). */
export const NotifierContext = createContext<{ notifier: PromptNotifier; shell: 'browser' | 'desktop' } | null>(null);

/** Asks the browser for permission; says what to do when it is refused. */
async function askPermission(): Promise<string | undefined> {
  if (typeof Notification === 'undefined') return 'This browser cannot show notifications.';
  const permission = Notification.permission === 'granted' ? 'granted' : await Notification.requestPermission();
  if (permission === 'granted') return undefined;
  return 'The browser refused notifications for this page: allow them in its site settings (the icon left of the address), then turn this on again.';
}

/**
 * "Notify me" and "Play a sound": what the console does when a prompt arrives while it is out of
 * sight. Both are off until the person turns them on; the browser's permission is asked only then,
 * by their click.
 */
export function NotificationSettings() {
  const context = useContext(NotifierContext);
  const [problem, setProblem] = useState<string>();
  const [asking, setAsking] = useState(false);
  const notifier = context?.notifier;
  const subscribe = useCallback((changed: () => void) => notifier?.subscribe(changed) ?? (() => {}), [notifier]);
  const notifyOn = useSyncExternalStore(subscribe, () => notifier?.notifyOn ?? false, () => false);
  const soundOn = useSyncExternalStore(subscribe, () => notifier?.soundOn ?? false, () => false);
  if (!context || !notifier) return null;

  async function toggleNotify(on: boolean): Promise<void> {
    setProblem(undefined);
    if (!on) {
      notifier!.setNotify(false);
      return;
    }
    setAsking(true);
    try {
      const refused = await askPermission();
      if (refused) setProblem(refused);
      else notifier!.setNotify(true);
    } finally {
      setAsking(false);
    }
  }

  return (
    <div className="notify-bar" role="group" aria-label="When a prompt arrives and the console is out of sight">
      {context.shell === 'desktop' ? (
        <span className="note">While this window is not focused, a new prompt shows a notification naming the tool and the agent.</span>
      ) : (
        <label title="A notification names the tool and the agent, never the arguments; clicking it opens the prompt">
          <input type="checkbox" checked={notifyOn} disabled={asking} onChange={(event) => void toggleNotify(event.target.checked)} /> Notify me of
          prompts while this tab is hidden
        </label>
      )}
      <label>
        <input type="checkbox" checked={soundOn} onChange={(event) => notifier.setSound(event.target.checked)} /> Play a sound
      </label>
      <ProblemNote problem={problem} testId="notify-problem" inline />
    </div>
  );
}
