import type { Locator } from '@playwright/test';
import type { ConsolePage } from './ConsolePage';
import { attributeSelector } from './cssAttribute';

/** The Permissions tab: every rule and grant in force, with revoke. */
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

  /** Clicks Revoke on a rule's row. */
  async revoke(rule: string): Promise<void> {
    await this.show();
    await this.row(rule).getByRole('button', { name: `Revoke ${rule}`, exact: true }).click();
  }
}
