import { isJsonObject } from '../../shared/jsonLimits';
import { progressOf, type Progress } from './progressThrottle';

/** What the tap needs of an MCP client transport (either SDK's). */
export interface TappableTransport {
  send(message: object, options?: unknown): Promise<void>;
  onmessage?(message: object, extra?: unknown): void;
}

/** The `_meta` key that marks the gate's tools/call requests whose progress the gate takes itself (ProgressTap). */
const CALL_MARKER = 'dev.toolgate/call';

/**
 * Hands a call's progress to the gate the moment it arrives, before the client reads the message.
 * The SDK client runs a notification's handler on a later turn but settles a result at once, so
 * progress that came in the same read as its call's result was dropped (the call had ended by
 * then): an agent missed where the call got to, on a loaded machine more often. Installed on a
 * transport before the client connects, after any other tap (the client calls the handler it found
 * first with each message); the client's own progress handler for these calls does nothing. Both
 * SDKs' clients dispatch this way: the gate's upstream client (v2) and the stdio bridge's (v1).
 */
export class ProgressTap {
  private nextMarker = 0;
  private readonly listeners = new Map<number, (progress: Progress) => void>();
  /** The progress token the client gave each marked request, by marker. */
  private readonly tokenOf = new Map<number, string>();
  /** The listener of each marked request sent, by its progress token. */
  private readonly byToken = new Map<string, (progress: Progress) => void>();

  constructor(transport: TappableTransport) {
    const send = transport.send.bind(transport);
    transport.send = (message, options) => {
      if (isJsonObject(message) && message.method === 'tools/call' && isJsonObject(message.params) && isJsonObject(message.params._meta)) {
        const { [CALL_MARKER]: marker, progressToken } = message.params._meta;
        const listener = typeof marker === 'number' ? this.listeners.get(marker) : undefined;
        if (typeof marker === 'number' && listener && (typeof progressToken === 'string' || typeof progressToken === 'number')) {
          this.tokenOf.set(marker, String(progressToken));
          this.byToken.set(String(progressToken), listener);
        }
      }
      return send(message, options);
    };
    const previous = transport.onmessage;
    transport.onmessage = (message, extra) => {
      previous?.(message, extra);
      if (!isJsonObject(message) || message.method !== 'notifications/progress' || 'id' in message || !isJsonObject(message.params)) return;
      const token = message.params.progressToken;
      const listener = typeof token === 'string' || typeof token === 'number' ? this.byToken.get(String(token)) : undefined;
      const progress = listener && progressOf(message.params);
      if (progress) listener(progress);
    };
  }

  /** The `_meta` a tools/call carries to have its progress taken here; end() once the call is over. */
  watch(onProgress: (progress: Progress) => void): { meta: Record<string, unknown>; end(): void } {
    const marker = ++this.nextMarker;
    this.listeners.set(marker, onProgress);
    return {
      meta: { [CALL_MARKER]: marker },
      end: () => {
        this.listeners.delete(marker);
        const token = this.tokenOf.get(marker);
        this.tokenOf.delete(marker);
        if (token !== undefined) this.byToken.delete(token);
      },
    };
  }
}
