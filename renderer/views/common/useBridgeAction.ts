import { useCallback, useState } from 'react';
import { describe } from '../../store/consoleSync';

/**
 * An action that asks the gate something: whether it is under way (to disable its button) and why
 * it last failed (for the view to show), so one click never sends twice and no failure is silent.
 */
export function useBridgeAction(): { inFlight: boolean; problem: string | undefined; run: (action: () => Promise<unknown>) => Promise<void> } {
  const [inFlight, setInFlight] = useState(false);
  const [problem, setProblem] = useState<string>();
  const run = useCallback(async (action: () => Promise<unknown>) => {
    setProblem(undefined);
    setInFlight(true);
    try {
      await action();
    } catch (error) {
      setProblem(describe(error));
    } finally {
      // On success the view may unmount; setting state on it then is harmless in React 18+.
      setInFlight(false);
    }
  }, []);
  return { inFlight, problem, run };
}
