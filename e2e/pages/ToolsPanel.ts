import { expect, type Locator } from '@playwright/test';
import type { ConsolePage } from './ConsolePage';
import { attributeSelector } from './cssAttribute';

/** The health a Tools row shows: healthy, unhealthy (shown as "unavailable") or not checked yet. */
export type ToolHealthState = 'healthy' | 'unhealthy' | 'unknown';

/** The Tools tab: one row per registered tool, with its tiers, limits and health. */
export class ToolsPanel {
  constructor(private readonly console: ConsolePage) {}

  /** Switches to the Tools tab. */
  async show(): Promise<Locator> {
    return this.console.tab('Tools');
  }

  /** Every tool row, sorted by name. */
  rows(): Locator {
    return this.console.page.getByTestId('tool-row');
  }

  /** The row of one tool. */
  rowFor(tool: string): Locator {
    return this.console.page.locator(`[data-testid="tool-row"]${attributeSelector('data-tool', tool)}`);
  }

  /**
   * Waits until a tool's latest health check says `state`. The gate checks every tool as it starts,
   * in tool processes that may still be starting, so the default wait is longer than expect's 5 s.
   */
  async waitForHealth(tool: string, state: ToolHealthState, timeout = 20_000): Promise<Locator> {
    await this.show();
    const row = this.rowFor(tool);
    await expect(row).toHaveAttribute('data-health', state, { timeout });
    return row;
  }

  /** The health verdict a row shows: "healthy" or "unavailable". */
  healthState(tool: string): Locator {
    return this.rowFor(tool).getByTestId('health-state');
  }

  /** The health message a row shows (the tool's own words, or why its check failed). */
  healthMessage(tool: string): Locator {
    return this.rowFor(tool).getByTestId('health-message');
  }

  /** Whether calls can reach the tool, as the row says. */
  async isAvailable(tool: string): Promise<boolean> {
    await this.show();
    return (await this.rowFor(tool).getAttribute('data-available')) === 'true';
  }

  /** The line under the effective tier saying why it is above the declared one. */
  tierRaised(tool: string): Locator {
    return this.rowFor(tool).getByTestId('tier-raised');
  }
}
