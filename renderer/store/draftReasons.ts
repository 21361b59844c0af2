import { z } from 'zod';
import { readItem, writeItem, type KeyValueStore } from './sessionStore';

/** The sessionStorage key holding every draft, as a JSON object keyed by approval id. */
export const DRAFT_REASONS_KEY = 'toolgate.reasons';

/** What the key holds: approval id → the reason typed so far. */
const StoredDraftsSchema = z.record(z.string(), z.string());

/**
 * Reasons typed into prompts and not sent yet, kept per approval id in the tab's session storage so
 * a reload does not lose them. ConsoleSync forgets a prompt's draft once the prompt resolves.
 */
export class DraftReasons {
  constructor(private readonly store: KeyValueStore | undefined) {}

  /** The draft for a prompt ('' when there is none). */
  get(approvalId: string): string {
    return this.read()[approvalId] ?? '';
  }

  /** Keeps the text typed so far; an empty text removes the draft. */
  set(approvalId: string, reason: string): void {
    const drafts = this.read();
    if (reason === '') delete drafts[approvalId];
    else drafts[approvalId] = reason;
    this.write(drafts);
  }

  /** Drops a resolved prompt's draft. */
  forget(approvalId: string): void {
    const drafts = this.read();
    if (!(approvalId in drafts)) return;
    delete drafts[approvalId];
    this.write(drafts);
  }

  /** Drops the drafts of every prompt not in `pendingIds` (they resolved while the page was away). */
  keepOnly(pendingIds: Iterable<string>): void {
    const pending = new Set(pendingIds);
    const drafts = this.read();
    const kept = Object.fromEntries(Object.entries(drafts).filter(([approvalId]) => pending.has(approvalId)));
    if (Object.keys(kept).length !== Object.keys(drafts).length) this.write(kept);
  }

  private read(): Record<string, string> {
    // Storage is writable by anything in the page's origin: a value that does not parse is no draft.
    try {
      const stored = StoredDraftsSchema.safeParse(JSON.parse(readItem(this.store, DRAFT_REASONS_KEY) ?? '{}'));
      return stored.success ? stored.data : {};
    } catch {
      return {};
    }
  }

  private write(drafts: Record<string, string>): void {
    writeItem(this.store, DRAFT_REASONS_KEY, Object.keys(drafts).length === 0 ? undefined : JSON.stringify(drafts));
  }
}
