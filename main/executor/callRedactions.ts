import type { RegisteredTool } from '../registry/registry';
import { MIN_SECRET_LENGTH, type ResolvedSecret } from '../secrets/placeholders';
import { Redactor } from '../secrets/redactor';
import { NO_SECRETS, type SecretProvider } from '../secrets/secretProvider';

/** How long a call's secrets are still redacted after it ended (late or buffered lines). */
const LINGER_MS = 30_000;

/**
 * The gate-wide redaction: every secret the gate knows (stored in the secrets file, or listed at
 * start) plus those of calls that run, or recently ran, with secrets (a value resolved just before
 * the secrets file changed). One redactor serves every result, error, log line, console event and
 * audit record: a file a tool wrote with a secret in it and read back by another call, or a tool
 * process's log line finished by the next call, shows the placeholder too. Stored values shorter
 * than MIN_SECRET_LENGTH are not looked for: they are never resolved, so no tool ever had them.
 */
export class CallRedactions {
  private readonly live = new Map<string, { secrets: readonly ResolvedSecret[]; timer?: ReturnType<typeof setTimeout> }>();
  /** Bumped whenever a call's secrets come or go. */
  private liveVersion = 0;
  /** The redactor, the secrets it was made of, and what they were read from (the provider's answer, the live calls' version). */
  private cached: { key: string; redactor: Redactor; known: readonly ResolvedSecret[]; liveVersion: number } | undefined;
  private readonly endListeners = new Set<(callId: string) => void>();

  constructor(private readonly provider?: SecretProvider) {}

  /** Registers a call's resolved secrets while its tool runs. */
  set(callId: string, secrets: readonly ResolvedSecret[]): void {
    if (secrets.length === 0) return;
    this.live.set(callId, { secrets: Object.freeze([...secrets]) });
    this.liveVersion++;
  }

  /** A call has ended: its streams are flushed, and its secrets stay redacted for a while longer. */
  delete(callId: string): void {
    for (const listener of [...this.endListeners]) listener(callId);
    const entry = this.live.get(callId);
    if (!entry || entry.timer) return;
    entry.timer = setTimeout(() => {
      this.live.delete(callId);
      this.liveVersion++;
    }, LINGER_MS);
    entry.timer.unref?.();
  }

  /** Listens for calls ending (the streamed output sends what it held back); returns the unsubscribe function. */
  onCallEnded(listener: (callId: string) => void): () => void {
    this.endListeners.add(listener);
    return () => this.endListeners.delete(listener);
  }

  /** Every secret known right now: the provider's (long enough to be used) and those of calls running or just ended. */
  secrets(): ResolvedSecret[] {
    return this.secretsWith(this.provider?.known() ?? NO_SECRETS);
  }

  private secretsWith(known: readonly ResolvedSecret[]): ResolvedSecret[] {
    const used = known.filter((secret) => secret.value.length >= MIN_SECRET_LENGTH);
    return [...used, ...[...this.live.values()].flatMap((entry) => entry.secrets)];
  }

  /**
   * The secrets a tool is given to hide from itself: every one known, for a built-in tool that
   * works on workspace files and neither starts programs nor reaches the network (so nothing it
   * runs or talks to could read them from it); none for any other.
   */
  hiddenFrom(entry: RegisteredTool): ResolvedSecret[] {
    const effects = entry.tool.manifest.sideEffects;
    const filesOnly = effects.includes('FsRead') && effects.every((effect) => effect === 'FsRead' || effect === 'FsWrite');
    return entry.module === 'builtin' && !entry.external && filesOnly ? this.secrets() : [];
  }

  /**
   * The redactor of every secret known right now (rebuilt only when the set of secrets changes).
   * While the provider answers with the same frozen array and no call's secrets came or went, it is
   * the last one, unlooked-at: that is every call of a gate whose secrets stay put, several times a
   * call. An array that is not frozen could have changed in place: its secrets are compared.
   */
  current(): Redactor {
    const known = this.provider?.known() ?? NO_SECRETS;
    const { cached, liveVersion } = this;
    if (cached && cached.known === known && cached.liveVersion === liveVersion && Object.isFrozen(known)) return cached.redactor;
    const secrets = this.secretsWith(known);
    const key = secrets.map(({ name, value }) => `${name}\u0000${value}`).join('\u0000\u0000');
    const redactor = cached?.key === key ? cached.redactor : new Redactor(secrets);
    this.cached = { key, redactor, known, liveVersion };
    return redactor;
  }

  /** A text (a log line, a piece of output) with every secret replaced by its placeholder. */
  redactLine(line: string): string {
    return this.current().redactText(line);
  }

  /** A deep copy of a JSON-ish value with every secret replaced by its placeholder (the value itself when there are none). */
  redactValue<T>(value: T): T {
    return this.current().redactValue(value) as T;
  }
}
