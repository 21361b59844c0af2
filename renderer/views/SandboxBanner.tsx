import type { SandboxFact } from '../../shared/health';
import { useConsoleState } from './consoleContext';

/** A reason as a sentence of its own: capital first letter, final stop. */
function asSentence(text: string): string {
  const trimmed = text.trim();
  const capital = trimmed.charAt(0).toUpperCase() + trimmed.slice(1);
  return /[.!?]$/.test(capital) ? capital : `${capital}.`;
}

/** The banner's sentence; undefined when tools run in a sandbox. */
export function sandboxWarning(sandbox: SandboxFact | undefined): string | undefined {
  if (!sandbox || sandbox.kind !== 'none') return undefined;
  const base = 'No OS sandbox: tools run without bubblewrap on this machine, so every tool that reads or writes files or starts programs is treated one tier higher.';
  return sandbox.reason?.trim() ? `${base} ${asSentence(sandbox.reason)}` : base;
}

/** Shown on every tab while tools run without an OS sandbox, so nobody approves a call thinking otherwise. */
export function SandboxBanner() {
  const warning = useConsoleState((s) => sandboxWarning(s.info?.sandbox));
  if (!warning) return null;
  return (
    <div className="banner banner-warning" role="status" data-testid="sandbox-banner">
      {warning}
    </div>
  );
}
