import { expect, type Locator } from '@playwright/test';
import type { ConsolePage } from './ConsolePage';

/** The Audit tab: the chain's verdict, the explorer (one row per call) and one call's trail of records. */
export class AuditPanel {
  constructor(private readonly console: ConsolePage) {}

  /** Switches to the Audit tab. */
  async show(): Promise<Locator> {
    return this.console.tab('Audit');
  }

  /** The verdict element ("Chain verified (N records)" or "Chain broken at seq N: reason"). */
  chainStatusElement(): Locator {
    return this.console.page.getByTestId('chain-status');
  }

  /** The verdict's text. */
  async chainStatus(): Promise<string> {
    await this.show();
    return (await this.chainStatusElement().textContent()) ?? '';
  }

  /** Waits until the verdict matches, e.g. /Chain verified \(\d+ records\)/. */
  async waitForChainStatus(expected: string | RegExp, timeout?: number): Promise<void> {
    await this.show();
    await expect(this.chainStatusElement()).toHaveText(expected, { timeout });
  }

  /** Clicks "Verify again". */
  async verifyAgain(): Promise<void> {
    await this.show();
    await this.console.page.getByRole('button', { name: 'Verify again', exact: true }).click();
  }

  /** The line over one call's audit trail ("N records of call …"). */
  trailHeading(): Locator {
    return this.console.page.getByTestId('audit-trail-heading');
  }

  /** The "Call id" filter box. */
  callFilter(): Locator {
    return this.console.page.getByRole('form', { name: 'Filter by call' }).getByLabel('Call id');
  }

  /** Shows the records of the call typed into the filter. */
  async filterByCall(callId: string): Promise<void> {
    await this.show();
    await this.callFilter().fill(callId);
    await this.console.page.getByRole('button', { name: 'Show its records', exact: true }).click();
  }

  /** Every audit row, newest (highest seq) first. */
  rows(): Locator {
    return this.console.page.getByTestId('audit-row');
  }

  /** The explorer's call rows drawn now (only those in view are in the page), newest first. */
  callRows(): Locator {
    return this.console.page.getByTestId('explorer-row');
  }

  /** The explorer row of one call. */
  callRow(callId: string): Locator {
    return this.console.page.locator(`[data-testid="explorer-row"][data-call-id="${callId}"]`);
  }

  /** The explorer's scroll box (arrow keys, Enter and Esc work in it). */
  callScroll(): Locator {
    return this.console.page.getByTestId('explorer-scroll');
  }

  /** A facet value's button, e.g. facetValue('tool', 'write_file'). */
  facetValue(facet: string, value: string): Locator {
    return this.console.page.locator(`button.facet-value[data-facet="${facet}"][data-value="${value}"]`);
  }

  /** The search box. */
  searchBox(): Locator {
    return this.console.page.getByTestId('explorer-search');
  }

  /** Types a search and presses Enter. */
  async search(text: string): Promise<void> {
    await this.searchBox().fill(text);
    await this.searchBox().press('Enter');
  }

  /** "N calls (M ms)" over the list. */
  callCount(): Locator {
    return this.console.page.getByTestId('explorer-count');
  }

  /** The open call's detail pane. */
  detail(): Locator {
    return this.console.page.getByTestId('call-detail');
  }
}
