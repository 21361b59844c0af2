import type { Locator } from '@playwright/test';
import type { ConsolePage } from './ConsolePage';

/** The Memory tab: the workspace's notes, a search, and Delete on each. */
export class MemoryPanel {
  constructor(private readonly console: ConsolePage) {}

  /** Switches to the Memory tab. */
  async show(): Promise<Locator> {
    return this.console.tab('Memory');
  }

  /** Every note shown, in order. */
  notes(): Locator {
    return this.console.page.getByTestId('memory-note');
  }

  /** The note of that id. */
  note(id: number): Locator {
    return this.console.page.locator(`[data-testid="memory-note"][data-note-id="${id}"]`);
  }

  /** Searches the notes for these words. */
  async search(words: string): Promise<void> {
    await this.console.page.getByRole('searchbox', { name: 'Search the notes' }).fill(words);
    await this.console.page.getByRole('button', { name: 'Search', exact: true }).click();
  }

  /** Clicks Delete on a note. */
  async delete(id: number): Promise<void> {
    await this.note(id).getByRole('button', { name: `Delete note ${id}` }).click();
  }
}
