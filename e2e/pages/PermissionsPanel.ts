import type { Locator } from '@playwright/test';
import type { ConsolePage } from './ConsolePage';
import { attributeSelector } from './cssAttribute';

/** The Permissions tab: every rule and grant in force, with revoke and keep for good. */
export class PermissionsPanel {
  constructor(private readonly console: ConsolePage) {}

  /** Switches to the Permissions tab. */
  async show(): Promise<Locator> {
    return this.console.tab('Permissions');
  }

  /** The row of a rule (by its text as written). */
  row(rule: string): Locator {
    return this.console.page.locator(`[data-testid="permission-row"]${attributeSelector('data-rule', rule)}`);
  }

  /** Opens "Keep for good…" on a grant's row, reads the review, and saves it to the user or project policy. */
  async keepForGood(rule: string, file: 'user' | 'project'): Promise<Locator> {
    await this.show();
    const row = this.row(rule);
    await row.getByRole('button', { name: `Keep ${rule} for good…`, exact: true }).click();
    const review = row.getByTestId('keep-choice');
    await review.getByRole('button', { name: `Save to the ${file} policy` }).click();
    return review;
  }

  /** Clicks Revoke on a rule's row. */
  async revoke(rule: string): Promise<void> {
    await this.show();
    await this.row(rule).getByRole('button', { name: `Revoke ${rule}`, exact: true }).click();
  }
}
