import { expect, type Locator, type Page } from '@playwright/test';
import { ApprovalsPanel } from './ApprovalsPanel';
import { AuditPanel } from './AuditPanel';
import { LivePanel } from './LivePanel';
import { MemoryPanel } from './MemoryPanel';
import { PermissionsPanel } from './PermissionsPanel';
import { ToolsPanel } from './ToolsPanel';

/** The console's tabs, by their visible names. */
export type ConsoleTab = 'Live' | 'Approvals' | 'Permissions' | 'Audit' | 'Tools' | 'Memory' | 'Settings';

/** The Toolgate console as a person sees it: header, tabs, one page object per panel. */
export class ConsolePage {
  /** The Live calls panel. */
  readonly live: LivePanel;
  /** The Approvals panel. */
  readonly approvals: ApprovalsPanel;
  /** The Audit panel. */
  readonly audit: AuditPanel;
  /** The Tools panel. */
  readonly tools: ToolsPanel;
  /** The Permissions panel. */
  readonly permissions: PermissionsPanel;
  /** The Memory panel. */
  readonly memory: MemoryPanel;

  constructor(readonly page: Page) {
    this.live = new LivePanel(this);
    this.approvals = new ApprovalsPanel(this);
    this.audit = new AuditPanel(this);
    this.tools = new ToolsPanel(this);
    this.permissions = new PermissionsPanel(this);
    this.memory = new MemoryPanel(this);
  }

  /** Opens the console URL `toolgate serve` printed and waits until the gate's facts are shown. */
  async open(url: string): Promise<void> {
    await this.page.goto(url);
    await expect(this.page.getByRole('tablist', { name: 'Console views' })).toBeVisible();
    await expect(this.connectionState()).toHaveText('connected');
  }

  /** Reloads the page (the token is kept for the tab's session) and waits for the link again. */
  async reload(): Promise<void> {
    await this.page.reload();
    await expect(this.connectionState()).toHaveText('connected');
  }

  /** The tab that is selected now. */
  selectedTab(): Locator {
    return this.page.getByRole('tab', { selected: true });
  }

  /** A tab button; its name includes a badge, e.g. "Approvals 2". */
  tabButton(name: ConsoleTab): Locator {
    return this.page.getByRole('tab', { name: new RegExp(`^${name}\\b`) });
  }

  /**
   * Switches to a tab and returns its (now visible) panel. A click that did not take (the page still
   * laying out as a slow gate's first answers come, the strip moved under the pointer) is clicked
   * again: choosing a tab twice is choosing it once.
   */
  async tab(name: ConsoleTab): Promise<Locator> {
    const button = this.tabButton(name);
    await expect(async () => {
      if ((await button.getAttribute('aria-selected')) !== 'true') await button.click();
      await expect(button).toHaveAttribute('aria-selected', 'true', { timeout: 2_000 });
    }).toPass();
    return this.page.getByRole('tabpanel', { name: new RegExp(`^${name}\\b`) });
  }

  /** How many prompts the Approvals badge says are waiting (0 when there is no badge). */
  async pendingApprovals(): Promise<number> {
    const name = (await this.tabButton('Approvals').textContent()) ?? '';
    const count = /(\d+)\s*$/.exec(name);
    return count ? Number(count[1]) : 0;
  }

  /** The header's link state: connecting, connected, disconnected, refused, closed. */
  connectionState(): Locator {
    return this.page.getByTestId('connection-state');
  }

  /** The "Disconnected — reconnecting…" banner. */
  disconnectedBanner(): Locator {
    return this.page.getByTestId('connection-banner');
  }

  /** The full-page notice shown without a token or when the token was refused. */
  notice(): Locator {
    return this.page.locator('.notice-screen').getByRole('alert');
  }

  /** The workspace shown in the header. */
  workspace(): Locator {
    return this.page.getByTestId('workspace');
  }

  /** The header's sandbox fact: "bubblewrap" or "none". */
  sandboxKind(): Locator {
    return this.page.getByTestId('sandbox-kind');
  }

  /** The "No OS sandbox: …" banner shown on every tab when tools run without bubblewrap. */
  sandboxBanner(): Locator {
    return this.page.getByTestId('sandbox-banner');
  }

  /** The MCP URL shown in the header. */
  mcpUrl(): Locator {
    return this.page.getByTestId('mcp-url');
  }
}
